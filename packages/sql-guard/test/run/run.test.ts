import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard.js';
import { GuardCheckError } from '../../src/run/errors.js';
import type { Guard, RunResult, SqlSession } from '../../src/types.js';
import { type Engine, type EngineName, engineNames, openEngine, schema, testDialect } from './engines.js';
import { runError } from './helpers.js';

const limits = { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 20_000 };
const valuesByEngine = new Map<EngineName, RunResult>();

const insert = (from: number, to: number) =>
  `INSERT INTO items (id, name) SELECT n, 'item ' || n FROM numbers WHERE n BETWEEN ${from} AND ${to}`;

describe.each(engineNames)('run on %s', (name) => {
  let engine: Engine;
  let guard: Guard;
  let small: Guard;

  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
    guard = await createGuard({ dialect: testDialect, limits });
    small = await createGuard({ dialect: testDialect, limits: { ...limits, maxReturnedRows: 3 } });
  });
  afterAll(() => engine?.close());

  const inRollback = <T>(fn: (session: SqlSession) => Promise<T>) =>
    engine.transaction(fn, { rollback: true });
  const itemCount = async () => Number((await engine.rows('SELECT count(*) AS c FROM items'))[0]?.c);

  it('returns at most maxReturnedRows with the exact total', async () => {
    const result = await inRollback((s) =>
      guard.run(s, 'SELECT n FROM numbers ORDER BY n', { mode: 'query' }),
    );
    const [statement] = result.statements;
    expect(statement).toMatchObject({
      index: 0,
      command: 'SELECT',
      columns: [{ name: 'n', type: 'int4' }],
      rowCount: 250,
      returnedRowCount: 100,
      totalRowCount: 250,
      truncated: true,
    });
    expect(statement?.rows[0]).toEqual({ n: 1 });
    expect(statement?.rows.at(-1)).toEqual({ n: 100 });
  });

  it('returns small and empty results whole, with their columns', async () => {
    const result = await inRollback((s) =>
      guard.run(
        s,
        'SELECT n FROM numbers WHERE n <= 3 ORDER BY n; SELECT n, n * 2 AS twice FROM numbers WHERE n < 0',
        {
          mode: 'script',
        },
      ),
    );
    expect(result.statements[0]).toMatchObject({
      rows: [{ n: 1 }, { n: 2 }, { n: 3 }],
      totalRowCount: 3,
      truncated: false,
    });
    expect(result.statements[1]).toMatchObject({
      index: 1,
      columns: [
        { name: 'n', type: 'int4' },
        { name: 'twice', type: 'int4' },
      ],
      rows: [],
      rowCount: 0,
      totalRowCount: 0,
      truncated: false,
    });
  });

  it('reports writes and caps RETURNING rows', async () => {
    const result = await inRollback((s) =>
      small.run(s, `${insert(1, 5)} RETURNING id, name`, { mode: 'execute' }),
    );
    expect(result.statements[0]).toMatchObject({
      command: 'INSERT',
      columns: [
        { name: 'id', type: 'int4' },
        { name: 'name', type: 'text' },
      ],
      rowCount: 5,
      returnedRowCount: 3,
      totalRowCount: 5,
      truncated: true,
    });
    expect(result.statements[0]?.rows[0]).toEqual({ id: 1, name: 'item 1' });
    const plain = await inRollback((s) => guard.run(s, insert(1, 5), { mode: 'execute' }));
    expect(plain.statements[0]).toMatchObject({ command: 'INSERT', rowCount: 5, totalRowCount: 0, rows: [] });
  });

  it('refuses a statement over the affected-row cap, and the rollback leaves nothing', async () => {
    const error = await runError(
      engine.transaction((s) => guard.run(s, insert(1, 101), { mode: 'execute' })),
    );
    expect(error.code).toBe('mutation_row_limit_exceeded');
    expect(error.details).toMatchObject({
      statementIndex: 0,
      affectedRows: 101,
      maxAffectedRows: 100,
      scope: 'statement',
    });
    expect(await itemCount()).toBe(0);
  });

  it('sums affected rows over a script', async () => {
    const script = `${insert(1, 60)}; UPDATE items SET amount = 1 WHERE id <= 10; ${insert(61, 100)}`;
    const error = await runError(engine.transaction((s) => guard.run(s, script, { mode: 'script' })));
    expect(error.code).toBe('mutation_row_limit_exceeded');
    expect(error.details).toMatchObject({ statementIndex: 2, affectedRows: 110, scope: 'request' });
    expect(await itemCount()).toBe(0);
    const ok = await inRollback((s) =>
      guard.run(s, `${insert(1, 60)}; ${insert(61, 100)}`, { mode: 'script' }),
    );
    expect(ok.statements.map((st) => st.rowCount)).toEqual([60, 40]);
  });

  it('counts writes hidden in data-modifying CTEs', async () => {
    await engine.exec(insert(1, 150));
    try {
      const deleted = await runError(
        engine.transaction((s) =>
          guard.run(s, 'WITH d AS (DELETE FROM items RETURNING 1) SELECT count(*) AS n FROM d', {
            mode: 'script',
          }),
        ),
      );
      expect(deleted.code).toBe('mutation_row_limit_exceeded');
      expect(deleted.details.affectedRows).toBe(150);

      const updated = await runError(
        engine.transaction((s) =>
          guard.run(
            s,
            "WITH u AS (UPDATE items SET amount = amount + 1 RETURNING id) INSERT INTO audit (note) SELECT 'bulk' FROM u LIMIT 1",
            { mode: 'execute' },
          ),
        ),
      );
      expect(updated.code).toBe('mutation_row_limit_exceeded');
      expect(updated.details.affectedRows).toBe(151);
      expect(await engine.rows('SELECT count(*) AS c, sum(amount)::int AS s FROM items')).toEqual([
        { c: '150', s: '0' },
      ]);

      const within = await inRollback((s) =>
        guard.run(
          s,
          'WITH d AS (DELETE FROM items WHERE id <= 10 RETURNING id) SELECT count(*) AS n FROM d',
          {
            mode: 'script',
          },
        ),
      );
      expect(within.statements[0]).toMatchObject({
        command: 'SELECT',
        rows: [{ n: '10' }],
        columns: [{ name: 'n', type: 'int8' }],
      });
    } finally {
      await engine.exec('DELETE FROM items');
    }
  });

  it('maps PostgreSQL errors with their details', async () => {
    const unique = await runError(
      engine.transaction((s) =>
        guard.run(s, "INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'a')", { mode: 'execute' }),
      ),
    );
    expect(unique).toMatchObject({ code: 'sql_execution_failed' });
    expect(unique.details).toMatchObject({
      sqlstate: '23505',
      constraint: 'items_name_key',
      statementIndex: 0,
    });

    const notNull = await runError(
      engine.transaction((s) =>
        guard.run(s, 'INSERT INTO items (id, name) VALUES (3, NULL)', { mode: 'execute' }),
      ),
    );
    expect(notNull.details).toMatchObject({ sqlstate: '23502', column: 'name' });

    const sql = "SELECT n FROM numbers;\n  SELECT n, 'nope'::integer FROM numbers";
    const missing = await runError(engine.transaction((s) => guard.run(s, sql, { mode: 'script' })));
    expect(missing.details).toMatchObject({
      sqlstate: '22P02',
      statementIndex: 1,
      position: { offset: sql.indexOf("'nope'"), line: 2, column: 13 },
    });
    expect(missing.message).toMatch(/nope/);
    expect(missing.message).not.toMatch(/sql_guard|cursor|DECLARE/i);
    expect(await itemCount()).toBe(0);
  });

  it('stops before running anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await runError(
      engine.transaction((s) => guard.run(s, insert(1, 5), { mode: 'execute', signal: controller.signal })),
    );
    expect(error).toMatchObject({ code: 'deadline_exceeded', details: { aborted: true } });
    expect(await itemCount()).toBe(0);
  });

  it('refuses what check refuses, before sending anything', async () => {
    const error = await engine
      .transaction((s) => guard.run(s, 'DROP TABLE items', { mode: 'script' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardCheckError);
    expect((error as GuardCheckError).violation.code).toBe('statement_not_allowed');
    expect(await engine.rows("SELECT to_regclass('items')::text AS t")).toEqual([{ t: 'items' }]);
  });

  it('serialises every value the same way', async () => {
    const result = await inRollback(async (s) => {
      // A session time zone far from UTC: timestamptz values come out in it, with its offset.
      await s.query("SET LOCAL TimeZone = 'America/New_York'");
      return guard.run(
        s,
        'SELECT id, num, big, i4, i2, f4, f8, t, vc, u, tstz, ts, d, iv, b, j, arr FROM vals ORDER BY id',
        {
          mode: 'query',
        },
      );
    });
    const [statement] = result.statements;
    expect(statement?.columns.map((c) => c.type)).toEqual([
      'int4',
      'numeric',
      'int8',
      'int4',
      'int2',
      'float4',
      'float8',
      'text',
      'varchar',
      'uuid',
      'timestamptz',
      'timestamp',
      'date',
      'interval',
      'bool',
      'jsonb',
      '_int4',
    ]);
    expect(statement?.rows).toEqual([
      {
        id: 1,
        num: '12345678901234567890.123456789',
        big: '9223372036854775807',
        i4: 2147483647,
        i2: -32768,
        f4: 0.1,
        f8: 0.1,
        t: 'it\'s \\ "quoted"',
        vc: 'varchar',
        u: '6f1c0b6e-8f3a-4a5e-9c1d-2b3a4c5d6e7f',
        tstz: '2026-01-01T20:04:05.123456-05:00',
        ts: '2026-01-02T03:04:05.500',
        d: '2026-08-09',
        iv: '1 year 2 mons 3 days 04:05:06.5',
        b: true,
        j: { a: [1, 2.5, 'x'], b: null },
        arr: [1, null, 3],
      },
      {
        id: 2,
        num: 'NaN',
        big: '-1',
        i4: 0,
        i2: 0,
        f4: 'Infinity',
        f8: '-Infinity',
        t: '',
        vc: null,
        u: null,
        tstz: '2026-06-30T19:59:59.000-04:00',
        ts: '-000043-03-15T12:00:00.000',
        d: '-000043-03-15',
        iv: '-00:00:01',
        b: false,
        j: [],
        arr: [],
      },
      {
        id: 3,
        num: null,
        big: null,
        i4: null,
        i2: null,
        f4: 'NaN',
        f8: 1e300,
        t: null,
        vc: null,
        u: null,
        tstz: null,
        ts: null,
        d: null,
        iv: null,
        b: null,
        j: null,
        arr: null,
      },
    ]);
    valuesByEngine.set(name, result);
  });
});

describe('across engines', () => {
  it('gives identical JSON for the same data', () => {
    const [first, ...rest] = engineNames.map((name) => valuesByEngine.get(name));
    expect(first).toBeDefined();
    for (const other of rest) expect(JSON.stringify(other)).toBe(JSON.stringify(first));
  });
});
