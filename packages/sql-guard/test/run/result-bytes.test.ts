/**
 * maxResultBytes: wide results, several wide statements, a too-large RETURNING and a single huge value are refused
 * with result_too_large on every engine, without the rows ever reaching this process in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import type { Guard, SessionResult, SqlSession } from '../../src/types.js';
import { type Engine, engineNames, openEngine, schema, testDialect } from './engines.js';
import { runError } from './helpers.js';

const MiB = 1024 * 1024;
const limits = { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 60_000 };

/** Counts the bytes of every value the session hands to `run` (what reached this process). */
function counting(session: SqlSession): { session: SqlSession; received: () => number } {
  let bytes = 0;
  const count = (results: SessionResult[]) => {
    for (const result of results) {
      for (const row of result.rows) {
        for (const value of Object.values(row)) if (typeof value === 'string') bytes += value.length;
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
  return { session: wrapped, received: () => bytes };
}

/** `SELECT note c0, note c1, ... FROM audit` with `columns` columns. */
const wide = (columns: number, from = 'audit') =>
  `SELECT ${Array.from({ length: columns }, (_, i) => `note c${i}`).join(', ')} FROM ${from}`;

describe.each(engineNames)('maxResultBytes on %s', (name) => {
  let engine: Engine;
  let guard: Guard;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
    // 20 notes of 2,000 characters: 1,600 columns of them are 3.2 MB per row.
    await engine.exec(
      "INSERT INTO audit (note) SELECT repeat('n', 2000) FROM generate_series(1, 20); INSERT INTO items (id, name) SELECT n, repeat('i', 10000) || n FROM numbers WHERE n <= 20",
    );
    guard = await createGuard({ dialect: testDialect, limits });
  }, 120_000);
  afterAll(() => engine?.close());

  const inRollback = <T>(fn: (session: SqlSession) => Promise<T>) =>
    engine.transaction(fn, { rollback: true });

  it('defaults to 4 MiB', () => {
    expect(guard.limits.maxResultBytes).toBe(4 * MiB);
  });

  it('refuses 1,600 columns of long notes in fewer than 100 rows, reading little more than the budget', async () => {
    const sql = wide(1600);
    const { error, received } = await inRollback(async (s) => {
      const c = counting(s);
      return { error: await runError(guard.run(c.session, sql, { mode: 'query' })), received: c.received() };
    });
    expect(error.code).toBe('result_too_large');
    expect(error.hint).toMatch(/fewer or shorter columns, or aggregate/);
    expect(error.details).toMatchObject({ statementIndex: 0, maxResultBytes: 4 * MiB });
    expect(received).toBeLessThanOrEqual(2 * 4 * MiB);
  });

  it('refuses the same with a literal LIMIT (no cursor)', async () => {
    const error = await inRollback((s) =>
      runError(guard.run(s, `${wide(1600)} LIMIT 10`, { mode: 'query' })),
    );
    expect(error.code).toBe('result_too_large');
  });

  it('counts all statements of a script together', async () => {
    // Each statement returns 2 rows of 400 columns (1.6 MB): within the budget alone, not three of them.
    const one = `${wide(400)} WHERE id <= 2`;
    const alone = await inRollback((s) => guard.run(s, one, { mode: 'query' }));
    expect(alone.statements[0]?.returnedRowCount).toBe(2);
    const error = await inRollback((s) =>
      runError(guard.run(s, `${one}; ${one}; ${one}; ${one}`, { mode: 'script' })),
    );
    expect(error.code).toBe('result_too_large');
    expect(error.details.statementIndex).toBe(2);
  });

  it('refuses a write whose RETURNING is too large, and the caller rolls it back', async () => {
    const before = await engine.rows('SELECT count(*) AS c FROM audit');
    const returning = Array.from({ length: 300 }, (_, i) => `note r${i}`).join(', ');
    const sql = `INSERT INTO audit (note) SELECT note FROM audit WHERE id <= 10 RETURNING ${returning}`;
    const error = await runError(engine.transaction((s) => guard.run(s, sql, { mode: 'execute' })));
    expect(error.code).toBe('result_too_large');
    expect(await engine.rows('SELECT count(*) AS c FROM audit')).toEqual(before);
  });

  it('refuses a single value built by concatenation before it travels', async () => {
    // One row, one value: 30 x 30 names of 10,000 characters, 9 MB.
    const times = (name: string) => Array.from({ length: 30 }, () => name).join(' || ');
    const sql = `SELECT ${times('y')} AS v FROM (SELECT ${times('x')} AS y FROM (SELECT name AS x FROM items WHERE id = 1) s) t`;
    const { error, received } = await inRollback(async (s) => {
      const c = counting(s);
      return { error: await runError(guard.run(c.session, sql, { mode: 'query' })), received: c.received() };
    });
    expect(error.code).toBe('result_too_large');
    expect(received).toBeLessThan(MiB);
  });

  it('accepts a result of exactly the budget and refuses one byte less', async () => {
    const sql = `${wide(3)} WHERE id <= 5 ORDER BY id`;
    const free = await createGuard({ dialect: testDialect, limits });
    const result = await inRollback((s) => free.run(s, sql, { mode: 'query' }));
    const bytes = result.statements[0]?.rows.reduce(
      (n: number, row) => n + Buffer.byteLength(JSON.stringify(row)),
      0,
    ) as number;
    const exact = await createGuard({ dialect: testDialect, limits: { ...limits, maxResultBytes: bytes } });
    const ok = await inRollback((s) => exact.run(s, sql, { mode: 'query' }));
    expect(ok.statements[0]?.rows).toEqual(result.statements[0]?.rows);
    const less = await createGuard({
      dialect: testDialect,
      limits: { ...limits, maxResultBytes: bytes - 1 },
    });
    const error = await inRollback((s) => runError(less.run(s, sql, { mode: 'query' })));
    expect(error.code).toBe('result_too_large');
  });

  it('keeps serving the session after a refusal', async () => {
    await inRollback((s) => runError(guard.run(s, wide(1600), { mode: 'query' })));
    const result = await inRollback((s) =>
      guard.run(s, 'SELECT count(*) AS c FROM audit', { mode: 'query' }),
    );
    expect(result.statements[0]?.rows[0]).toEqual({ c: '20' });
  });
});
