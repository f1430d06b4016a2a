import fc from 'fast-check';
import { loadModule, parseSync } from 'libpg-query';
import { describe, expect, it } from 'vitest';
import {
  lexicalViolation,
  literalsExplainTriggers,
  mayHoldLexicalViolation,
  scan,
} from '../../src/check/lexical.js';
import { stringConstStarts } from '../../src/check/literals.js';
import { Source } from '../../src/check/source.js';
import { rejected } from './helpers.js';

await loadModule();

/** Whether check may skip the scanner for this text (undefined: it does not parse). */
function skips(sql: string): boolean | undefined {
  let stmts: unknown;
  try {
    stmts = parseSync(sql).stmts;
  } catch {
    return undefined;
  }
  return (
    !mayHoldLexicalViolation(sql) || literalsExplainTriggers(sql, stringConstStarts(stmts, new Source(sql)))
  );
}

describe('skipping the scanner on the parse tree', () => {
  it('skips it when suspicious characters are only inside ordinary string literals', () => {
    for (const sql of [
      'SELECT note FROM ledger_entries WHERE note = \'paid $5 -- cash /* x */ "ok"\'',
      "SELECT 'it''s \"quoted\"', 'a$b' FROM ledger_entries",
      "SELECT 'CAFE', 'see E', 'U&' FROM ledger_entries",
      "SELECT 'Müller $€' || '--' AS x",
      "SELECT 1 WHERE 'x' LIKE '%$%' ESCAPE '$'",
      "SELECT DATE '2026-01-01', INTERVAL '1 day -- no comment'",
    ])
      expect(skips(sql), sql).toBe(true);
  });

  it('scans when such a character is outside a plain literal, and the violations are still found', () => {
    const cases: [string, Parameters<typeof rejected>[1]][] = [
      ["SELECT E'x$'", 'nonstandard_string_literal_not_allowed'],
      ["SELECT N'x'", 'nonstandard_string_literal_not_allowed'],
      ["SELECT n'x$'", 'nonstandard_string_literal_not_allowed'],
      ["SELECT U&'x'", 'nonstandard_string_literal_not_allowed'],
      ["SELECT B'1', 'a$'", 'nonstandard_string_literal_not_allowed'],
      ["SELECT 'a' -- '$'\n", 'comment_not_allowed'],
      ["SELECT 'a'\n'b$' -- c\n", 'comment_not_allowed'],
      ["SELECT 'a' /* $ */", 'comment_not_allowed'],
      ['SELECT "amount" FROM ledger_entries', 'quoted_identifier_not_allowed'],
      ["SELECT $$a'b$$", 'dollar_quoted_string_not_allowed'],
      ["SELECT 'x', $t$ 'y' $t$", 'dollar_quoted_string_not_allowed'],
    ];
    for (const [sql, code] of cases) {
      expect(skips(sql), sql).toBe(false);
      rejected(sql, code);
    }
  });

  it('never skips the scanner when the scanner would find a violation (generated texts)', () => {
    const piece = fc.constantFrom(
      "'a'",
      "'$'",
      "'--'",
      "'/*'",
      "'\"'",
      "'it''s'",
      "'E'",
      "E'x'",
      "e'x'",
      "N'x'",
      "B'1'",
      "X'1F'",
      "U&'x'",
      'U&"x"',
      '"q"',
      '$$x$$',
      '$t$x$t$',
      '-- c\n',
      '/* c */',
      '\n',
      ' ',
      '||',
      '1',
      'note',
      'n',
      'e',
      '&',
      '-',
      '/',
      '*',
      '$1',
    );
    let skipped = 0;
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.boolean(), (pieces, spaced) => {
        const sql = `SELECT ${pieces.join(spaced ? ' ' : '')}`;
        const skip = skips(sql);
        if (!skip) return;
        skipped++;
        const tokens = scan(sql);
        expect(tokens && lexicalViolation(tokens), sql).toBeFalsy();
      }),
      { numRuns: 5000, seed: 20261123 },
    );
    expect(skipped).toBeGreaterThan(100);
  });
});
