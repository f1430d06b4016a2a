/**
 * Column bounds from CHECK constraints (run/check-bounds.ts), read from real databases: each rule, each refusal
 * (OR, NOT, NOT VALID, a table with children, other functions, another column, a domain over a domain, numeric
 * equality), and a
 * property: no value the constraints accept serializes wider than its column's bound, and the runner answers such
 * reads without the wrapper, with the rows the measured path answers.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import { type ColumnWidths, readColumnWidths } from '../../src/run/column-widths.js';
import { rowCheckColumn } from '../../src/run/wrapper-sql.js';
import type { Dialect, Guard } from '../../src/types.js';
import { type Engine, engineNames, openEngine } from './engines.js';
import { recording } from './helpers.js';

const table = `
CREATE DOMAIN plain_text AS text;
CREATE DOMAIN nested_text AS plain_text;
CREATE TABLE bounded (
  k integer PRIMARY KEY,
  le text CHECK (char_length(le) <= 10),
  lt text CHECK (character_length(lt) < 10),
  eq text CHECK (length(eq) = 3),
  btw text CHECK (char_length(btw) BETWEEN 1 AND 5 AND btrim(btw) <> ''),
  rev text CHECK (7 >= pg_catalog.char_length(rev)),
  vc varchar CHECK (char_length(vc) <= 4),
  vc8 varchar(8) CHECK (char_length(vc8) <= 20),
  dom plain_text CHECK (char_length(dom) <= 2),
  kind text CHECK (kind IN ('income', 'spend', 'transfer')),
  esc text CHECK (esc IN ('a"b', 'ü')),
  vkind varchar CHECK (vkind IN ('x', 'yy')),
  one text CHECK (one = 'EUR'),
  amount numeric CHECK (scale(amount) <= 2 AND abs(amount) < 1e6),
  ranged numeric CHECK (ranged BETWEEN -1000 AND 100 AND scale(ranged) <= 0),
  texted numeric CHECK (char_length(texted::text) <= 12),
  either text CHECK (char_length(either) <= 5 OR either = ''),
  unvalidated text,
  noinh text,
  other text CHECK (octet_length(other) <= 5),
  wrapped text CHECK (char_length(upper(wrapped)) <= 5),
  ref text,
  wrong text CHECK (char_length(ref) <= 3),
  scaled numeric CHECK (scale(scaled) <= 2),
  half numeric CHECK (scale(half) <= 2 AND half < 100),
  listed numeric CHECK (listed IN (1, 2)),
  nested nested_text CHECK (char_length(nested) <= 2),
  cut numeric CHECK (char_length(cut::varchar(3)) <= 2),
  negated text CHECK (NOT (char_length(negated) > 5))
);
ALTER TABLE bounded ADD CONSTRAINT bounded_unvalidated CHECK (char_length(unvalidated) <= 5) NOT VALID;
ALTER TABLE bounded ADD CONSTRAINT bounded_noinh CHECK (char_length(noinh) <= 5) NO INHERIT;
CREATE TABLE parent (x text CHECK (char_length(x) <= 3));
CREATE TABLE child () INHERITS (parent);
CREATE TABLE lone (x text CHECK (char_length(x) <= 3));
`;

/** Each column's bound in bytes (null: none). */
const expected: Record<string, number | null> = {
  k: 11,
  le: 2 + 6 * 10,
  lt: 2 + 6 * 9,
  eq: 2 + 6 * 3,
  btw: 2 + 6 * 5,
  rev: 2 + 6 * 7,
  vc: 2 + 6 * 4,
  vc8: 2 + 6 * 8, // the type's bound is the tighter
  dom: 2 + 6 * 2,
  kind: '"transfer"'.length,
  esc: Buffer.byteLength('"a\\"b"'),
  vkind: '"yy"'.length,
  one: '"EUR"'.length,
  amount: '"-999999.99"'.length,
  ranged: '"-1000"'.length,
  texted: 2 + 12,
  either: null,
  unvalidated: null,
  noinh: 2 + 6 * 5, // enforced on every row read: the table has no children
  other: null,
  wrapped: null,
  ref: 2 + 6 * 3,
  wrong: null,
  scaled: null,
  half: null,
  listed: null,
  nested: null,
  cut: null,
  negated: null,
};
const columns = Object.keys(expected);
const dialect: Dialect = {
  relations: { bounded: { operations: ['select'], columns } },
  functions: [],
  castTypes: [],
};
const limits = { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 60_000 };

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Text without NUL (PostgreSQL's text has none), of the characters whose JSON is longest and astral ones. */
const character = fc.oneof(
  fc.constantFrom('\u0001', '\u001f', '"', '\\', '\u2028', '😀', 'ü', 'a', ' '),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '\u0000'),
);
const text = (max: number, min = 0) =>
  fc.array(character, { minLength: min, maxLength: max }).map((cs) => cs.join(''));
/** A numeric of at most `digits` integer digits and `scale` decimals, written with its full scale. */
const numeric = (digits: number, scale: number) =>
  fc
    .tuple(
      fc.boolean(),
      fc.stringMatching(new RegExp(`^[0-9]{1,${digits}}$`)),
      fc.integer({ min: 0, max: scale }),
      fc.stringMatching(/^[0-9]{12}$/),
    )
    .map(([negative, whole, decimals, fraction]) => {
      const value = `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction.slice(0, decimals)}` : ''}`;
      return `${quote(value)}::numeric`;
    });

describe.each(engineNames)('bounds from CHECK constraints on %s', (name) => {
  let engine: Engine;
  let widths: ColumnWidths;
  let guard: Guard;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(table);
    widths = await engine.transaction((session) => readColumnWidths(session, ['bounded']));
    guard = await createGuard({ dialect, limits });
  }, 60_000);
  afterAll(() => engine?.close());

  it('derives each rule’s bound, and none from OR, NOT, NOT VALID, other functions or columns', () => {
    expect(Object.fromEntries(widths.get('bounded') ?? [])).toEqual(expected);
  });

  it('takes no bound from a table with inheritance children (a child may be a foreign table)', async () => {
    const read = await engine.transaction((session) => readColumnWidths(session, ['parent', 'lone']));
    expect(read.get('parent')?.get('x')).toBe(null);
    expect(read.get('lone')?.get('x')).toBe(2 + 6 * 3);
  });

  it.runIf(name === 'postgres')(
    'takes no literal bound under a nondeterministic collation (other texts compare equal)',
    async () => {
      await engine.exec(
        `CREATE COLLATION loose (provider = icu, locale = 'und-u-ks-level1', deterministic = false);
         CREATE TABLE loosely (k text COLLATE loose CHECK (k IN ('é')), n text COLLATE loose CHECK (char_length(n) <= 1))`,
      );
      const read = await engine.transaction((session) => readColumnWidths(session, ['loosely']));
      expect(read.get('loosely')?.get('k')).toBe(null);
      expect(read.get('loosely')?.get('n')).toBe(2 + 6);
      // Why: the decomposed é (two characters, 5 bytes of JSON) passes a check that names the composed one (4).
      await engine.exec("INSERT INTO loosely (k) VALUES (E'e\\u0301')");
      const rows = await engine.rows('SELECT k FROM loosely');
      expect(Buffer.byteLength(JSON.stringify(rows[0]?.k))).toBe(5);
    },
  );

  it('holds because the constraints refuse what would be wider (NaN, Infinity, a longer scale or text)', async () => {
    for (const [column, value] of [
      ['amount', "'NaN'"],
      ['amount', "'-Infinity'"],
      ['amount', '1000000'],
      ['amount', '1.234'],
      ['amount', '1.000'],
      ['ranged', '-1001'],
      ['texted', "'1234567890.123'"],
      ['le', "'12345678901'"],
      ['kind', "'refund'"],
    ] as const) {
      await expect(
        engine.exec(`INSERT INTO bounded (k, ${column}) VALUES (1, ${value})`),
      ).rejects.toMatchObject({
        code: '23514',
      });
    }
  });

  it('never answers a value wider than its bound, and reads the bounded columns lean', async () => {
    const bounded = columns.filter((c) => typeof expected[c] === 'number');
    const row = fc.record({
      le: text(10),
      lt: text(9),
      eq: text(3, 3),
      btw: text(5, 1).map((s) => (s.trim() === '' ? Array.from(`${s}x`).slice(-5).join('') : s)),
      rev: text(7),
      vc: text(4),
      vc8: text(8),
      dom: text(2),
      kind: fc.constantFrom('income', 'spend', 'transfer'),
      esc: fc.constantFrom('a"b', 'ü'),
      vkind: fc.constantFrom('x', 'yy'),
      one: fc.constant('EUR'),
      amount: numeric(6, 2),
      ranged: fc.integer({ min: -1000, max: 100 }).map(String),
      texted: fc.constantFrom("'-1234567.890'", "'NaN'", "'Infinity'", "'-Infinity'", "'0.0000000000'", '12'),
      ref: text(3),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 4 }), async (rows) => {
        const values = rows
          .map((r, i) => {
            const cells = Object.entries(r).map(([column, value]) =>
              ['amount', 'ranged', 'texted'].includes(column) ? value : quote(value),
            );
            return `(${i}, ${cells.join(', ')})`;
          })
          .join(', ');
        const result = await engine.transaction(
          async (s) => {
            await s.query(
              `INSERT INTO bounded (k, ${Object.keys(rows[0] ?? {}).join(', ')}) VALUES ${values}`,
            );
            const { session, sent } = recording(s);
            const run = await guard.run(session, `SELECT ${bounded.join(', ')} FROM bounded ORDER BY k`, {
              mode: 'query',
            });
            return { run, sent };
          },
          { rollback: true },
        );
        expect(result.sent.join('\n')).not.toContain(rowCheckColumn);
        const answered = result.run.statements[0]?.rows ?? [];
        expect(answered).toHaveLength(rows.length);
        for (const answer of answered) {
          for (const column of bounded) {
            const bytes = Buffer.byteLength(JSON.stringify((answer as Record<string, unknown>)[column]));
            expect(
              bytes,
              `${column}: ${JSON.stringify((answer as Record<string, unknown>)[column])}`,
            ).toBeLessThanOrEqual(expected[column] as number);
          }
        }
      }),
      { numRuns: name === 'pglite-worker' ? 10 : 30 },
    );
  }, 120_000);
});
