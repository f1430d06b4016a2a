import fc from 'fast-check';
import { loadModule, parseSync } from 'libpg-query';
import { describe, expect, it } from 'vitest';
import { longCorpus } from '../../bench/long-corpus.js';
import { compileDialect } from '../../src/check/dialect.js';
import {
  lexicalViolation,
  literalsExplainTriggers,
  mayHoldLexicalViolation,
  scan,
} from '../../src/check/lexical.js';
import { indexesOfBytes, stringConstStarts } from '../../src/check/literals.js';
import { Source } from '../../src/check/source.js';
import { Walker } from '../../src/check/walker.js';
import { expenseDialect } from '../../src/dialect/expense.js';
import { defaultLimits } from '../../src/limits.js';
import { allCorpora } from './corpus.js';
import { accepted, rejected } from './helpers.js';

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

  it('reads the same literal starts from the walk as from the whole tree, for every accepted corpus statement', () => {
    // check skips its own reading of the tree when the walk accepted every statement (check.ts): a constant the
    // walk missed would only make it scan, but each of these would then pay the scanner for nothing.
    const dialect = compileDialect(expenseDialect);
    let withLiterals = 0;
    for (const [sql, mode] of [
      ...allCorpora,
      ...longCorpus.map((c): [string, typeof c.mode] => [c.sql, c.mode]),
    ]) {
      accepted(sql, mode);
      const source = new Source(sql);
      const stmts = parseSync(sql).stmts as { stmt: Record<string, unknown>; stmt_location?: number }[];
      const bytes: number[] = [];
      for (const raw of stmts) {
        const type = Object.keys(raw.stmt)[0]!;
        const w = new Walker(
          dialect,
          raw.stmt_location ?? 0,
          defaultLimits.maxExpandedNodes,
          defaultLimits.maxExpandedBytes,
        );
        w.stringConsts = bytes;
        w.visit(type, raw.stmt[type]);
      }
      const whole = stringConstStarts(stmts, source);
      if (whole.length > 0) withLiterals++;
      expect(indexesOfBytes(bytes, source), sql).toEqual(whole);
    }
    expect(withLiterals).toBeGreaterThan(50);
  });

  it('refuses what the scanner finds after a walk that accepted, and before what a walk refused', () => {
    // The walk runs before the scan when a character may begin a refused token (check.ts): the lexical refusal wins.
    rejected("SELECT note FROM ledger_entries WHERE note = 'x$' -- y\n", 'comment_not_allowed');
    rejected("SELECT nope FROM ledger_entries WHERE note = 'x$' /* y */", 'comment_not_allowed');
    rejected("SELECT 'a$', E'b' FROM nowhere", 'nonstandard_string_literal_not_allowed');
    rejected('SELECT 1; SELECT "q"', 'quoted_identifier_not_allowed');
    rejected("SELECT 'x$' FROM nowhere", 'relation_not_allowed');
  });
});
