/**
 * The lean path (run/lean.ts): a plain read of one relation whose rows provably fit half the budget left runs
 * without the measuring wrapper. Its answers are the measured path's, row for row, on every engine; a read that does
 * not fit keeps the wrapper and still fails with result_too_large; the row cap with exact totals and the deadline
 * hold on the lean path.
 */
import { loadModule } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import { type ColumnWidths, maxJsonWidth, readColumnWidths } from '../../src/run/column-widths.js';
import { resultBound, rowBound, runsLean } from '../../src/run/lean.js';
import { shapeOf } from '../../src/run/statement-shape.js';
import { rowCheckColumn } from '../../src/run/wrapper-sql.js';
import type { Dialect, Guard, Limits, RunResult, SessionResult, SqlSession } from '../../src/types.js';
import { type Engine, engineNames, openEngine, schema, testDialect } from './engines.js';
import { recording, runError } from './helpers.js';

const limits = { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 20_000 };

/** Besides the run tests' tables: labels of up to 2,000 characters (a bound of about 1.2 MB for 100 rows). */
const labels = `
CREATE TABLE labels (id integer PRIMARY KEY, label varchar(2000) NOT NULL, at date);
INSERT INTO labels SELECT g, repeat('l', 2000), DATE '2026-01-01' + g FROM generate_series(1, 20) g;
INSERT INTO items (id, name, amount) SELECT g, 'item ' || g, g * 1.25 - 40 FROM generate_series(1, 60) g;
`;
const dialect: Dialect = {
  ...testDialect,
  relations: {
    ...testDialect.relations,
    labels: { operations: ['select'], columns: ['id', 'label', 'at'] },
  },
};

/** Whether a run's texts carry the measuring wrapper. */
const measured = (sent: string[]) => sent.join('\n').includes(rowCheckColumn);

describe('which reads have a plain output', () => {
  beforeAll(() => loadModule());

  it('takes a select list of the one relation’s columns, under their output names', () => {
    expect(shapeOf('SELECT id, big AS b FROM vals WHERE t IS NULL ORDER BY id LIMIT 3').output).toEqual({
      relation: 'vals',
      columns: [
        { name: 'id', column: 'id' },
        { name: 'b', column: 'big' },
      ],
    });
    expect(shapeOf('SELECT v.*, V.ID FROM ONLY vals AS v GROUP BY v.id').output).toEqual({
      relation: 'vals',
      columns: ['*', { name: 'id', column: 'id' }],
    });
    expect(shapeOf('SELECT * FROM numbers WHERE n IN (SELECT count(*) FROM vals)').output).toEqual({
      relation: 'numbers',
      columns: ['*'],
    });
  });

  it('refuses every other shape', () => {
    for (const sql of [
      'SELECT id + 1 AS id FROM vals',
      'SELECT count(*) AS id FROM vals',
      'SELECT id::text AS id FROM vals',
      'SELECT (v).id FROM vals v',
      'SELECT id FROM public.vals',
      'SELECT id FROM vals v(a, b)',
      'SELECT id FROM vals, numbers',
      'SELECT id FROM vals JOIN numbers ON n = id',
      'SELECT id FROM (SELECT id FROM vals) s',
      'WITH vals AS (SELECT t AS id FROM vals) SELECT id FROM vals',
      'SELECT id FROM vals UNION ALL SELECT n FROM numbers',
      'SELECT x.id FROM vals v',
      'SELECT vals.id FROM vals v',
      'SELECT id FROM vals FOR SHARE',
      'SELECT id INTO t FROM vals',
      'SELECT 1 AS id',
      'VALUES (1)',
      'DELETE FROM vals RETURNING id',
    ]) {
      expect(shapeOf(sql).output, sql).toBeNull();
    }
  });

  it('bounds only the types whose text has a bound', () => {
    // varchar(20), char(3), numeric(12,2) as pg_attribute.atttypmod has them; -1: none declared.
    expect(maxJsonWidth(1043, 24)).toBe(2 + 6 * 20);
    expect(maxJsonWidth(1042, 7)).toBe(2 + 6 * 3);
    // numeric(12,2): "-9999999999.99"; numeric(3,5): "-0.00999" and NaN within 9; numeric(3,-2): "-99900".
    expect(maxJsonWidth(1700, ((12 << 16) | 2) + 4)).toBe(2 + 14);
    expect(maxJsonWidth(1700, ((3 << 16) | 5) + 4)).toBe(2 + 9);
    expect(maxJsonWidth(1700, ((30 << 16) | 35) + 4)).toBe(2 + 38);
    expect(maxJsonWidth(1700, ((13 << 16) | (-2 & 0x7ff)) + 4)).toBe(2 + 16);
    for (const [oid, typmod] of [
      [25, -1], // text
      [1043, -1], // varchar
      [1042, -1], // bpchar
      [1700, -1], // numeric
      [3802, -1], // jsonb
      [1007, -1], // int4[]
      [1186, -1], // interval
      [790, -1], // money
    ] as const) {
      expect(maxJsonWidth(oid, typmod), `${oid}`).toBeNull();
    }
  });

  it('fits the bound into half the budget left, with LIMIT or the row cap, whichever is lower', () => {
    const widths: ColumnWidths = new Map([['t', new Map<string, number | null>([['a', 11]])]]);
    const output = { relation: 't', columns: [{ name: 'a', column: 'a' }] };
    // {"a":-2147483648} and a comma.
    expect(rowBound(output, widths)).toBe(18);
    expect(resultBound(output, widths, 10)).toBe(180);
    const question = { output, limit: null, maxReturnedRows: 100, remainingBytes: 3600 };
    expect(runsLean(question, widths)).toBe(true);
    expect(runsLean({ ...question, remainingBytes: 3599 }, widths)).toBe(false);
    expect(runsLean({ ...question, limit: 1000, remainingBytes: 3600 }, widths)).toBe(true);
    expect(runsLean({ ...question, limit: 10, remainingBytes: 360 }, widths)).toBe(true);
    expect(runsLean({ ...question, limit: 10, remainingBytes: 359 }, widths)).toBe(false);
    expect(runsLean({ ...question, output: { relation: 't', columns: ['*'] } }, widths)).toBe(true);
    expect(runsLean({ ...question, output: { relation: 'u', columns: ['*'] } }, widths)).toBe(false);
    expect(
      runsLean({ ...question, output: { relation: 't', columns: [{ name: 'a', column: 'b' }] } }, widths),
    ).toBe(false);
    // `SELECT v FROM t v` has a plain shape, but `v` is no column of t: the whole row, which has no bound.
    expect(
      runsLean({ ...question, output: { relation: 't', columns: [{ name: 'v', column: 'v' }] } }, widths),
    ).toBe(false);
    expect(runsLean(question, undefined)).toBe(false);
  });
});

/** Counts the characters of every value the session hands to `run` (what reached this process). */
function counting(session: SqlSession): { session: SqlSession; received: () => number } {
  let characters = 0;
  const count = (results: SessionResult[]) => {
    for (const result of results) {
      for (const row of result.rows) {
        for (const value of Object.values(row)) if (typeof value === 'string') characters += value.length;
      }
    }
    return results;
  };
  const wrapped: SqlSession = {
    ...session,
    query: async (text) => count([await session.query(text)])[0] as SessionResult,
  };
  const batch = session.queryBatch?.bind(session);
  if (batch) wrapped.queryBatch = async (text, info) => count(await batch(text, info));
  return { session: wrapped, received: () => characters };
}

describe.each(engineNames)('the lean path on %s', (name) => {
  let engine: Engine;
  let guard: Guard;
  let widths: ColumnWidths;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
    await engine.exec(labels);
    guard = await createGuard({ dialect, limits });
    widths = await engine.transaction((s) => readColumnWidths(s, Object.keys(dialect.relations)), {
      rollback: true,
    });
  }, 120_000);
  afterAll(() => engine?.close());

  const run = (g: Guard, sql: string, mode: 'query' | 'script' = 'query') =>
    engine.transaction(
      async (s) => {
        const { session, sent } = recording(s);
        const result = await g.run(session, sql, { mode });
        return { result, sent };
      },
      { rollback: true },
    );

  /** The statement's bound from the catalog's widths (the test fails when it has none). */
  const boundOf = (sql: string): number => {
    const shape = shapeOf(sql);
    const rows = Math.min(shape.limit ?? limits.maxReturnedRows, limits.maxReturnedRows);
    const bound = shape.output && resultBound(shape.output, widths, rows);
    expect(bound, sql).toBeTypeOf('number');
    return bound as number;
  };

  /** A guard whose budget the bound of `sql` does not fit (twice the bound would), though its rows do. */
  const measuringGuard = (sql: string, extra: Partial<Limits> = {}) =>
    createGuard({ dialect, limits: { ...limits, maxResultBytes: boundOf(sql), ...extra } });

  it('reads the widths of the relations from the catalog', () => {
    expect([...(widths.get('vals')?.entries() ?? [])]).toEqual([
      ['id', 11],
      ['num', null],
      ['big', 22],
      ['i4', 11],
      ['i2', 6],
      ['f4', 25],
      ['f8', 25],
      ['t', null],
      ['vc', 2 + 6 * 20],
      ['u', 38],
      ['tstz', 40],
      ['ts', 31],
      ['d', 16],
      ['iv', null],
      ['b', 5],
      ['j', null],
      ['arr', null],
    ]);
    expect(widths.get('items')?.get('amount')).toBe(16);
  });

  for (const sql of [
    'SELECT id, big, i4, i2, f4, f8, vc, u, tstz, ts, d, b FROM vals ORDER BY id LIMIT 10',
    'SELECT v.id, v.vc AS label, v.tstz, v.d AS day FROM vals AS v ORDER BY v.id',
    'SELECT n FROM numbers WHERE n % 7 = 0 ORDER BY n DESC',
    'SELECT * FROM numbers ORDER BY n',
    'SELECT id, amount FROM items WHERE amount < 0 ORDER BY amount LIMIT 50',
    'SELECT id, label, at FROM labels ORDER BY id DESC',
  ]) {
    it(`answers the same JSON with and without the wrapper: ${sql}`, async () => {
      const lean = await run(guard, sql);
      const wrapped = await run(await measuringGuard(sql), sql);
      expect(measured(lean.sent)).toBe(false);
      expect(measured(wrapped.sent)).toBe(true);
      expect(lean.result.statements.length).toBe(1);
      expect(lean.result.statements[0]?.rows.length).toBeGreaterThan(0);
      const [a, b] = [lean.result.statements[0], wrapped.result.statements[0]];
      expect(a?.columns).toEqual(b?.columns);
      expect(a?.rows.length).toBe(b?.rows.length);
      a?.rows.forEach((row, i) => {
        expect(JSON.stringify(row)).toBe(JSON.stringify(b?.rows[i]));
      });
      expect(JSON.stringify(lean.result)).toBe(JSON.stringify(wrapped.result));
      // The bound holds for what the lean path answered.
      const bytes = (r: RunResult) =>
        (r.statements[0]?.rows ?? []).reduce((n, row) => n + Buffer.byteLength(JSON.stringify(row)) + 1, 0);
      expect(bytes(lean.result)).toBeLessThanOrEqual(boundOf(sql));
    });
  }

  for (const sql of [
    "SELECT n FROM numbers WHERE n = 'x' LIMIT 5",
    "SELECT id, at\nFROM labels\nWHERE at > 'not a date' ORDER BY id",
  ]) {
    it(`fails the same way on both paths, at the same position: ${JSON.stringify(sql)}`, async () => {
      const failure = (g: Guard) =>
        engine.transaction(
          async (s) => {
            const { session, sent } = recording(s);
            return { error: await runError(g.run(session, sql, { mode: 'query' })), sent };
          },
          { rollback: true },
        );
      const lean = await failure(guard);
      const wrapped = await failure(await measuringGuard(sql));
      expect(measured(lean.sent)).toBe(false);
      expect(measured(wrapped.sent)).toBe(true);
      expect(lean.error.code).toBe('sql_execution_failed');
      expect(lean.error.details.position).toBeDefined();
      expect(sql.slice(lean.error.details.position?.offset).startsWith("'")).toBe(true);
      expect({ ...lean.error, message: lean.error.message }).toEqual({
        ...wrapped.error,
        message: wrapped.error.message,
      });
    });
  }

  it('keeps the wrapper for reads it cannot bound', async () => {
    for (const sql of [
      'SELECT id, t FROM vals ORDER BY id LIMIT 3',
      'SELECT id, num FROM vals ORDER BY id',
      'SELECT * FROM vals ORDER BY id',
      'SELECT count(*) AS c FROM numbers',
      'SELECT n + 1 AS n FROM numbers ORDER BY n LIMIT 5',
      'SELECT id, name FROM items ORDER BY id LIMIT 5',
    ]) {
      expect(measured((await run(guard, sql)).sent), sql).toBe(true);
    }
  });

  it('keeps the cap and exact totals: a cursor without a LIMIT, and a LIMIT within the cap', async () => {
    const all = await run(guard, 'SELECT n FROM numbers ORDER BY n');
    expect(measured(all.sent)).toBe(false);
    expect(all.sent.join('\n')).toContain('DECLARE');
    expect(all.result.statements[0]).toMatchObject({
      rowCount: 250,
      returnedRowCount: 100,
      totalRowCount: 250,
      truncated: true,
    });
    expect(all.result.statements[0]?.rows.at(-1)).toEqual({ n: 100 });
    const limited = await run(guard, 'SELECT n FROM numbers ORDER BY n DESC LIMIT 100');
    expect(measured(limited.sent)).toBe(false);
    expect(limited.sent.join('\n')).not.toContain('DECLARE');
    expect(limited.result.statements[0]).toMatchObject({
      rowCount: 100,
      returnedRowCount: 100,
      totalRowCount: 100,
      truncated: false,
    });
    // A LIMIT past the cap goes through the cursor, bounded by the cap.
    const past = await run(guard, 'SELECT n FROM numbers ORDER BY n LIMIT 200');
    expect(measured(past.sent)).toBe(false);
    expect(past.result.statements[0]).toMatchObject({ returnedRowCount: 100, totalRowCount: 200 });
  });

  it('measures a read that does not fit, which still fails with result_too_large', async () => {
    // 20 labels of 2,000 characters are about 40 KB of JSON; their bound for 100 rows about 1.2 MB.
    const sql = 'SELECT id, label FROM labels';
    expect(measured((await run(guard, sql)).sent)).toBe(false);
    const small = await createGuard({ dialect, limits: { ...limits, maxResultBytes: 30_000 } });
    const { error, sent, received } = await engine.transaction(
      async (s) => {
        const { session, sent } = recording(s);
        const c = counting(session);
        const error = await runError(small.run(c.session, sql, { mode: 'query' }));
        return { error, sent, received: c.received() };
      },
      { rollback: true },
    );
    expect(error.code).toBe('result_too_large');
    expect(error.details).toMatchObject({ statementIndex: 0, maxResultBytes: 30_000 });
    expect(measured(sent)).toBe(true);
    expect(received).toBeLessThanOrEqual(2 * 30_000);
  });

  it('fits each statement of a script into the budget the statements before it left', async () => {
    const one = 'SELECT id, label FROM labels WHERE id <= 10 ORDER BY id';
    const bound = boundOf(one);
    // The first statement fits half the budget; after its 20 KB of rows the second no longer does.
    const tight = await createGuard({ dialect, limits: { ...limits, maxResultBytes: 2 * bound + 1_000 } });
    const { result, sent } = await run(tight, `${one}; ${one}`, 'script');
    const statements = sent.filter((text) => text.includes('FROM labels'));
    expect(statements.map((text) => measured([text]))).toEqual([false, true]);
    expect(result.statements.map((s) => s.returnedRowCount)).toEqual([10, 10]);
    expect(JSON.stringify(result.statements[0]?.rows)).toBe(JSON.stringify(result.statements[1]?.rows));
  });
});

describe.each(engineNames.filter((name) => name !== 'pglite'))('the lean path’s deadline on %s', (name) => {
  let engine: Engine;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
  }, 120_000);
  afterAll(() => engine?.close());

  it('stops a plain read that would run for minutes', async () => {
    // One column of numbers, filtered by a 4-way cross join of 250 rows (~3.9 billion rows).
    const sql =
      'SELECT n FROM numbers WHERE n = (SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d)';
    const guard = await createGuard({ dialect: testDialect, limits: { ...limits, deadlineMs: 1_500 } });
    const { error, sent } = await engine.transaction(
      async (s) => {
        const { session, sent } = recording(s);
        // The recording copies the session's own properties; a worker transaction's cancel is a method.
        if (s.cancel) session.cancel = () => s.cancel?.() ?? Promise.resolve();
        return { error: await runError(guard.run(session, sql, { mode: 'query' })), sent };
      },
      { rollback: true },
    );
    expect(error.code).toBe('deadline_exceeded');
    expect(measured(sent)).toBe(false);
  });
});
