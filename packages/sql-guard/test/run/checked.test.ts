// run with a result of check (parse once), the `last` hint sessions receive, and the worker host's
// exclusive sessions with results parsed from PGlite's wire answer.
import { rm } from 'node:fs/promises';
import { emptyPgliteDir } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteWorkerHost } from '../../src/adapters/pglite.js';
import { parseSimpleQueryResponse, simpleQueryMessage } from '../../src/adapters/pglite-wire.js';
import { createGuard } from '../../src/guard.js';
import { GuardCheckError } from '../../src/run/errors.js';
import type { BatchInfo, CheckResult, Guard, SqlSession } from '../../src/types.js';
import { type Engine, openEngine, schema, testDialect } from './engines.js';

describe('run with a checked result', () => {
  let engine: Engine;
  let guard: Guard;
  let other: Guard;

  beforeAll(async () => {
    engine = await openEngine('postgres');
    await engine.exec(schema);
    guard = await createGuard({ dialect: testDialect });
    other = await createGuard({ dialect: testDialect });
  });
  afterAll(() => engine?.close());

  const rowsOf = async (sql: string, checked: CheckResult, mode: 'query' | 'execute' = 'query') =>
    (
      await engine.transaction((s) => guard.run(s, sql, { mode, checked }), { rollback: true })
    ).statements.map((s) => s.rows);

  it('runs what its own check accepted for the same text and mode', async () => {
    const sql = 'SELECT n FROM numbers WHERE n < 3 ORDER BY n';
    const checked = guard.check(sql, { mode: 'query' });
    expect(await rowsOf(sql, checked)).toEqual([[{ n: 1 }, { n: 2 }]]);
  });

  it('runs its own copy: changing the returned result afterwards changes nothing', async () => {
    const sql = 'SELECT n FROM numbers WHERE n = 1';
    const checked = guard.check(sql, { mode: 'query' });
    if (!checked.ok) throw new Error('expected the check to accept');
    const statement = checked.statements[0] as { sql: string; readOnly: boolean };
    statement.sql = 'DELETE FROM numbers';
    statement.readOnly = true;
    expect(await rowsOf(sql, checked)).toEqual([[{ n: 1 }]]);
  });

  it('ignores a result of other text, another mode, another guard, or one it never made', async () => {
    const refused = 'SELECT pg_sleep(1)';
    const accepted = guard.check('SELECT 1 AS x', { mode: 'query' });
    const forged: CheckResult = {
      ok: true,
      statements: [
        {
          sql: refused,
          kind: 'select',
          readOnly: true,
          relations: [],
          location: { offset: 0, length: refused.length },
        },
      ],
    };
    for (const checked of [accepted, other.check(refused, { mode: 'query' }), forged]) {
      const run = engine.transaction((s) => guard.run(s, refused, { mode: 'query', checked }), {
        rollback: true,
      });
      await expect(run).rejects.toMatchObject({ violation: { code: 'function_not_allowed' } });
    }
    const insert = 'INSERT INTO audit (note) VALUES (1)';
    const asQuery = guard.check(insert, { mode: 'query' });
    expect(asQuery.ok).toBe(false);
    const asExecute = guard.check(insert, { mode: 'execute' });
    const wrongMode = engine.transaction((s) => guard.run(s, insert, { mode: 'query', checked: asExecute }));
    await expect(wrongMode).rejects.toBeInstanceOf(GuardCheckError);
  });

  it('tells the session which batch carries the last statement', async () => {
    const infos: Array<BatchInfo | undefined> = [];
    await engine.transaction(
      async (session) => {
        const recording: SqlSession = {
          ...session,
          query: (text) => session.query(text),
          queryBatch: (text, info) => {
            infos.push(info);
            return session.queryBatch?.(text) ?? Promise.resolve([]);
          },
        };
        return guard.run(recording, 'SELECT 1 AS a; INSERT INTO audit (note) VALUES (2); SELECT 3 AS c', {
          mode: 'script',
        });
      },
      { rollback: true },
    );
    expect(infos).toEqual([{ last: false }, { last: false }, { last: true }]);
  });
});

describe('PGliteWorkerHost.exclusive and the wire parser', () => {
  let dataDir: string;
  let host: PGliteWorkerHost;

  beforeAll(async () => {
    dataDir = await emptyPgliteDir('sql-guard-exclusive-');
    host = await PGliteWorkerHost.open({ dataDir });
    await host.exec('CREATE TABLE t (id integer PRIMARY KEY, note text)');
  });
  afterAll(async () => {
    await host?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs a whole transaction in one batch, and rolls back what a failing body left open', async () => {
    const results = await host.exclusive((s) =>
      s.queryBatch(
        "BEGIN; INSERT INTO t VALUES (1, 'é'), (2, NULL); SELECT id, note FROM t ORDER BY id; COMMIT",
      ),
    );
    expect(results.map((r) => [r.command, r.rowCount])).toEqual([
      ['BEGIN', null],
      ['INSERT', 2],
      ['SELECT', 2],
      ['COMMIT', null],
    ]);
    expect(results[2]?.rows).toEqual([
      { id: '1', note: 'é' },
      { id: '2', note: null },
    ]);
    expect(results[2]?.fields).toEqual([
      { name: 'id', dataTypeID: 23 },
      { name: 'note', dataTypeID: 25 },
    ]);

    const failing = host.exclusive(async (s) => {
      await s.queryBatch("BEGIN; INSERT INTO t VALUES (3, 'lost')");
      await s.queryBatch('SELECT 1/0');
    });
    await expect(failing).rejects.toMatchObject({ code: '22012', message: 'division by zero' });
    expect((await host.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: '2' }]);
  });

  it('keeps error fields and positions, and gives an empty text one empty result', async () => {
    const error = await host.exec('SELECT nope FROM t').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: '42703', position: '8', message: 'column "nope" does not exist' });
    const duplicate = await host.exec("INSERT INTO t VALUES (1, 'again')").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(duplicate).toMatchObject({ code: '23505', constraint: 't_pkey', table: 't' });
    expect(await host.exec('')).toEqual([{ command: '', rowCount: null, fields: [], rows: [] }]);
  });

  it('parses a message stream it is given in one piece', () => {
    const message = simpleQueryMessage('SELECT 1');
    expect([...message.subarray(0, 5)]).toEqual([0x51, 0, 0, 0, 13]);
    // RowDescription (one int4 column "x"), DataRow ("1"), CommandComplete, ReadyForQuery.
    const bytes = Buffer.concat([
      Buffer.from([0x54, 0, 0, 0, 26, 0, 1]),
      Buffer.from('x\0'),
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 0, 4, 255, 255, 255, 255, 0, 0]),
      Buffer.from([0x44, 0, 0, 0, 11, 0, 1, 0, 0, 0, 1]),
      Buffer.from('1'),
      Buffer.from([0x43, 0, 0, 0, 13]),
      Buffer.from('SELECT 1\0'),
      Buffer.from([0x5a, 0, 0, 0, 5, 0x49]),
    ]);
    expect(parseSimpleQueryResponse(bytes)).toEqual([
      { command: 'SELECT', rowCount: 1, fields: [{ name: 'x', dataTypeID: 23 }], rows: [{ x: '1' }] },
    ]);
  });
});
