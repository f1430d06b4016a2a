import fc from 'fast-check';
import { loadModule } from 'libpg-query';
import { describe, expect, it } from 'vitest';
import { longCorpus } from '../../bench/long-corpus.js';
import { complexityViolation, MAX_STRUCTURAL_TOKENS, scan } from '../../src/check/lexical.js';
import { exceedsStructuralBudget } from '../../src/check/structural-bound.js';
import { accepted, rejected } from './helpers.js';

await loadModule();

/** Pieces whose lexing differs from a plain reading: literals of every kind, comments, quoted names, numbers. */
const PIECES = [
  '(',
  ')',
  '[',
  ']',
  ',',
  ';',
  '.',
  '::',
  '+',
  '-',
  '*',
  '<=',
  '=',
  '&',
  '$1',
  'SELECT',
  'NOT',
  'a',
  'e',
  'E',
  'b',
  'x',
  'U',
  'n',
  'default',
  'null',
  '1',
  '1.5',
  '1e5',
  '.5',
  '1_000',
  '0x1F',
  "'",
  "''",
  "'x'",
  "'it''s'",
  "'a\\'",
  "E'",
  "E'\\''",
  "e'\\\\'",
  "B'1'",
  "X'1F'",
  "U&'d'",
  "N'x'",
  '"q"',
  '"a""b"',
  'U&"q"',
  '--c\n',
  '--',
  '/*',
  '*/',
  '/* a /* b */ c */',
  '$$',
  '$$x$$',
  '$t$',
  '$t$y$t$',
  '\\',
  '\n',
  ' ',
  '\t',
  'é',
  '😀',
  'a$b',
];

const text = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('', ' ', '\n')), { maxLength: 60 })
  .map((parts) => parts.map(([p, sep]) => p + sep).join(''));

describe('the upper bound that lets long texts skip the scanner', () => {
  it('is never below the exact count: whenever the scan finds a statement over a budget, so does the bound', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 30 }), (sql, budget) => {
        const tokens = scan(sql);
        if (!tokens) return;
        if (complexityViolation(tokens, budget)) expect(exceedsStructuralBudget(sql, budget)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('proves the long texts an agent sends within the budget, so they are not scanned', () => {
    for (const { sql } of longCorpus) {
      expect(sql.length).toBeGreaterThan(1900);
      expect(exceedsStructuralBudget(sql, MAX_STRUCTURAL_TOKENS)).toBe(false);
    }
  });

  it('gives up (scan) on what could hide a quote or a semicolon, and on open literals', () => {
    const flat = `SELECT ${Array.from({ length: 10 }, (_, i) => `'${i}'`).join(', ')}`;
    expect(exceedsStructuralBudget(flat, 5)).toBe(false);
    for (const hiding of [' \\', ' "a"', ' -- c', ' /* c */', ' $$a$$', ' $t$a$t$', " 'open"]) {
      expect(exceedsStructuralBudget(flat + hiding, 5)).toBe(true);
    }
    // A semicolon inside a literal does not end a statement; one outside does.
    const two = `SELECT (((1))); SELECT (((1)))`;
    expect(exceedsStructuralBudget(two, 5)).toBe(false);
    expect(exceedsStructuralBudget(`SELECT ((('; '))) + (((1)))`, 5)).toBe(true);
  });

  it('leaves the deep and the long rejected as before, with the same message', () => {
    const deep = `SELECT ${'('.repeat(1500)}1${')'.repeat(1500)}`;
    const e = rejected(deep, 'construct_not_allowed');
    expect(e.message).toMatch(/more than 1000 operators, keywords and brackets/);
    // A flat text far longer than SHORT_INPUT is accepted.
    accepted(longCorpus[0]!.sql, 'execute');
  });
});
