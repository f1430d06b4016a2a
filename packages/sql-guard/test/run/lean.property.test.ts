/**
 * The lean path's bound is a bound: for random rows at the widest values of every type with a bound (the extremes
 * of each range, `infinity`, NaN, offsets with seconds, strings of the declared length made of the characters
 * whose JSON is longest), in random session time zones, no value's JSON passes its column's width, no row's JSON
 * passes the row bound, and the rows the runner answers without the wrapper are those it answers with it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import { type ColumnWidths, readColumnWidths } from '../../src/run/column-widths.js';
import { resultBound, rowBound } from '../../src/run/lean.js';
import { shapeOf } from '../../src/run/statement-shape.js';
import { rowCheckColumn } from '../../src/run/wrapper-sql.js';
import type { Dialect, Guard } from '../../src/types.js';
import { type Engine, engineNames, openEngine } from './engines.js';
import { recording } from './helpers.js';

const table = `
CREATE TABLE maxed (
  k integer PRIMARY KEY, b boolean, i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
  n1 numeric(1,0), n12 numeric(12,2), n5 numeric(5,5), n35 numeric(3,5), nneg numeric(3,-2), n40 numeric(40,20),
  n1212 numeric(12,12), n812 numeric(8,12), nneg10 numeric(10,-5),
  d date, t time, tz timetz, ts timestamp, tstz timestamptz, u uuid, c char(3), c1 char, vc varchar(12)
);`;
const columns = [
  'k',
  'b',
  'i2',
  'i4',
  'i8',
  'f4',
  'f8',
  'n1',
  'n12',
  'n5',
  'n35',
  'nneg',
  'n40',
  'n1212',
  'n812',
  'nneg10',
  'd',
  't',
  'tz',
  'ts',
  'tstz',
  'u',
  'c',
  'c1',
  'vc',
];
const dialect: Dialect = {
  relations: { maxed: { operations: ['select'], columns } },
  functions: [],
  castTypes: [],
};
const limits = { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 60_000 };

const zones = [
  'UTC',
  'America/St_Johns',
  'Asia/Kathmandu',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'Europe/Amsterdam', // +00:19:32 before 1937
  'Africa/Monrovia', // -00:43:08 before 1972
  'America/Los_Angeles',
];

const pad = (n: number | bigint, width: number) => String(n).padStart(width, '0');
const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** `n` digits, the first of them not 0 (all of them count). */
const digits = (n: number) =>
  n === 0
    ? fc.constant('')
    : fc
        .tuple(
          fc.integer({ min: 1, max: 9 }),
          fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n - 1, maxLength: n - 1 }),
        )
        .map(([first, rest]) => `${first}${rest.join('')}`);
/** The widest values first, then any value of the range. */
const widest = <T>(extremes: T[], any: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constantFrom(...extremes), weight: 2 }, { arbitrary: any, weight: 1 });
const numberText = (x: number) => (Number.isNaN(x) ? "'NaN'" : `'${String(x)}'`);

/** numeric(p, s) at its full number of digits (negative ones included), or NaN. */
function numeric(p: number, s: number): fc.Arbitrary<string> {
  const body =
    s < 0
      ? digits(p).map((d) => `${d}${'0'.repeat(-s)}`)
      : s > p
        ? digits(p).map((d) => `0.${'0'.repeat(s - p)}${d}`)
        : fc.tuple(digits(p - s), digits(s)).map(([i, f]) => `${i || '0'}${s > 0 ? `.${f}` : ''}`);
  return fc.oneof(
    { arbitrary: fc.tuple(fc.boolean(), body).map(([minus, b]) => `'${minus ? '-' : ''}${b}'`), weight: 8 },
    { arbitrary: fc.constant("'NaN'"), weight: 1 },
  );
}

const time = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }))
  .chain(([h, m, s]) =>
    fc.integer({ min: 0, max: 999_999 }).map((us) => `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(us, 6)}`),
  );
const offset = fc
  .tuple(
    fc.boolean(),
    fc.integer({ min: 0, max: 15 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
  )
  .map(([minus, h, m, s]) => `${minus ? '-' : '+'}${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`);
/** A day of timestamp's range: years 1..294276 AD or 1..4713 BC (4714 BC starts on November 24). */
const day = fc
  .tuple(fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
  .chain(([bc, m, d]) =>
    fc
      .integer({ min: 1, max: bc ? 4713 : 294276 })
      .map((y) => ({ date: `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, bc })),
  );
const timestamp = (zone: string) =>
  fc.tuple(day, time).map(([{ date, bc }, t]) => quote(`${date} ${t}${zone}${bc ? ' BC' : ''}`));

/** Characters whose JSON is longest for their kind: control characters, quotes, 2- to 4-byte UTF-8. */
const wide = fc.constantFrom('\u0001', '\u001f', '\n', '"', '\\', "'", ' ', 'a', 'é', '€', '\u2028', '😀');
const text = (n: number) => fc.array(wide, { minLength: n, maxLength: n }).map((c) => quote(c.join('')));

const values: Record<string, fc.Arbitrary<string>> = {
  b: fc.constantFrom('true', 'false'),
  i2: widest([-32768, 32767], fc.integer({ min: -32768, max: 32767 })).map(String),
  i4: widest([-2147483648, 2147483647], fc.integer()).map(String),
  i8: widest([-(2n ** 63n), 2n ** 63n - 1n], fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })).map(
    (n) => `'${n}'`,
  ),
  f4: widest(
    [-3.4028234663852886e38, -1.1754943508222875e-38, Number.NEGATIVE_INFINITY, Number.NaN],
    fc.float(),
  ).map(numberText),
  f8: widest(
    [
      -1.2345678901234567e-308,
      -1.2345678901234567e-6,
      -1.2345678901234567e20,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
    ],
    fc.double(),
  ).map(numberText),
  n1: numeric(1, 0),
  n12: numeric(12, 2),
  n5: numeric(5, 5),
  n35: numeric(3, 5),
  nneg: numeric(3, -2),
  n40: numeric(40, 20),
  n1212: numeric(12, 12),
  n812: numeric(8, 12),
  nneg10: numeric(10, -5),
  d: widest(
    ["'infinity'", "'-infinity'", "'5874897-12-31'", "'4714-11-24 BC'"],
    fc.integer({ min: 0, max: 2147483493 }).map((k) => `DATE '4714-11-24 BC' + ${k}`),
  ),
  t: widest(["'24:00:00'", "'23:59:59.999999'"], time.map(quote)),
  tz: widest(
    ["'24:00:00-15:59:59'"],
    fc.tuple(time, offset).map(([t, o]) => quote(`${t}${o}`)),
  ),
  ts: widest(
    ["'infinity'", "'294276-12-31 23:59:59.999999'", "'4714-11-24 00:00:00.000001 BC'"],
    timestamp(''),
  ),
  tstz: widest(
    ["'-infinity'", "'294276-12-31 23:59:59.999999+00'", "'4714-11-24 00:00:00.000001+00 BC'"],
    timestamp('+00'),
  ),
  u: fc.uuid().map(quote),
  c: text(3),
  c1: text(1),
  vc: text(12),
};

/** A row: every column's value or NULL. */
const row = fc.record(
  Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      fc.oneof({ arbitrary: value, weight: 9 }, { arbitrary: fc.constant('NULL'), weight: 1 }),
    ]),
  ),
);

const measured = (sent: string[]) => sent.join('\n').includes(rowCheckColumn);

describe.each(engineNames)('the lean bound holds for the widest rows on %s', (name) => {
  let engine: Engine;
  let lean: Guard;
  let wrapped: Guard;
  let widths: ColumnWidths;
  const sql = 'SELECT * FROM maxed ORDER BY k';
  const output = shapeOf(sql).output;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(table);
    widths = await engine.transaction((s) => readColumnWidths(s, ['maxed']), { rollback: true });
    lean = await createGuard({ dialect, limits });
    const bound = output && resultBound(output, widths, limits.maxReturnedRows);
    // A budget the bound does not fit into twice, which the rows fit: the measured path.
    wrapped = await createGuard({ dialect, limits: { ...limits, maxResultBytes: bound ?? 0 } });
  }, 120_000);
  afterAll(() => engine?.close());

  it('bounds every column of the table', () => {
    for (const column of columns) expect(widths.get('maxed')?.get(column), column).toBeTypeOf('number');
  });

  it('never answers more JSON than the bound, and the same JSON as the measured path', async () => {
    if (!output) throw new Error('SELECT * FROM maxed has a plain output');
    const perRow = rowBound(output, widths) as number;
    const maxed = widths.get('maxed') as ReadonlyMap<string, number | null>;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(...zones),
        async (rows, zone) => {
          const insert = `INSERT INTO maxed (${columns.join(', ')}) VALUES ${rows
            .map((r, k) => `(${[String(k), ...columns.slice(1).map((c) => r[c])].join(', ')})`)
            .join(', ')}`;
          const { a, b, sentA, sentB } = await engine.transaction(
            async (s) => {
              await s.query(insert);
              await s.query(`SET LOCAL TimeZone = ${quote(zone)}`);
              const ra = recording(s);
              const a = await lean.run(ra.session, sql, { mode: 'query' });
              const rb = recording(s);
              const b = await wrapped.run(rb.session, sql, { mode: 'query' });
              return { a, b, sentA: ra.sent, sentB: rb.sent };
            },
            { rollback: true },
          );
          expect(measured(sentA)).toBe(false);
          expect(measured(sentB)).toBe(true);
          const answered = a.statements[0]?.rows ?? [];
          expect(answered.length).toBe(rows.length);
          let total = 0;
          for (const r of answered) {
            for (const [column, value] of Object.entries(r)) {
              const width = Math.max(maxed.get(column) as number, 4);
              expect(
                Buffer.byteLength(JSON.stringify(value)),
                `${column}: ${JSON.stringify(value)}`,
              ).toBeLessThanOrEqual(width);
            }
            const bytes = Buffer.byteLength(JSON.stringify(r)) + 1;
            expect(bytes).toBeLessThanOrEqual(perRow);
            total += bytes;
          }
          expect(total).toBeLessThanOrEqual(perRow * rows.length);
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        },
      ),
      { numRuns: name === 'pglite-worker' ? 15 : 40 },
    );
  }, 300_000);
});
