import { rm } from 'node:fs/promises';
import { emptyPgliteDir, freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSession } from '../../src/adapters/pg.js';
import { PGliteWorkerHost, pgliteSession } from '../../src/adapters/pglite.js';
import { createGuard, GuardRunError, introspectDialect, runInTransaction } from '../../src/index.js';
import type { Guard, SqlSession } from '../../src/types.js';
import { blankPglite } from '../run/engines.js';
import { recording, runError } from '../run/helpers.js';

/**
 * A script never commits in part (issue 25: outside a transaction its first INSERT stayed committed): `run` refuses a
 * session outside a transaction block (no_transaction, nothing run), runInTransaction opens, commits and rolls back
 * one, and a caller's own transaction is rolled back whole. On PostgreSQL, PGlite and the PGlite worker host.
 */
const schema = `CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL);`;
/** The second statement fails (duplicate key): the first must not stay. */
const failing =
  "INSERT INTO notes (id, body) VALUES (1, 'one'); INSERT INTO notes (id, body) VALUES (1, 'again')";

interface Bare {
  exec(sql: string): Promise<void>;
  count(): Promise<number>;
  /** A session outside any transaction. */
  bare<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  /** A session inside a transaction the caller opened (rolled back when fn throws, committed otherwise). */
  inTransaction<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function openBare(name: 'postgres' | 'pglite' | 'pglite-worker'): Promise<Bare> {
  if (name === 'postgres') {
    const database = await freshPostgres({ prefix: 'sql_guard_tx' });
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on('error', () => {});
    const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>) => {
      const client = await pool.connect();
      try {
        return await fn(client);
      } finally {
        client.release();
      }
    };
    return {
      exec: async (sql) => void (await pool.query(sql)),
      count: async () => Number((await pool.query('SELECT count(*) AS n FROM notes')).rows[0].n),
      bare: (fn) => withClient((client) => fn(pgSession(client))),
      inTransaction: (fn) =>
        withClient(async (client) => {
          await client.query('BEGIN');
          try {
            const value = await fn(pgSession(client));
            await client.query('COMMIT');
            return value;
          } catch (error) {
            await client.query('ROLLBACK');
            throw error;
          }
        }),
      close: async () => {
        await pool.end();
        await database.drop();
      },
    };
  }
  if (name === 'pglite') {
    const { db, close } = await blankPglite();
    return {
      exec: async (sql) => void (await db.exec(sql)),
      count: async () =>
        Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).rows[0]?.n),
      bare: (fn) => fn(pgliteSession(db, db)),
      inTransaction: (fn) => db.transaction((tx) => fn(pgliteSession(tx, db))),
      close,
    };
  }
  const dataDir = await emptyPgliteDir('sql-guard-tx-');
  const host = await PGliteWorkerHost.open({ dataDir });
  return {
    exec: async (sql) => void (await host.exec(sql)),
    count: async () => Number((await host.query('SELECT count(*) AS n FROM notes')).rows[0]?.n),
    bare: (fn) => host.exclusive(fn),
    inTransaction: (fn) => host.transaction(fn),
    close: async () => {
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe.each(['postgres', 'pglite', 'pglite-worker'] as const)(
  'a script never commits in part on %s',
  (name) => {
    let db: Bare;
    let guard: Guard;
    beforeAll(async () => {
      db = await openBare(name);
      await db.exec(schema);
      const dialect = await db.bare((s) =>
        introspectDialect(s, { functions: ['count'], castTypes: ['text'] }),
      );
      guard = await createGuard({ dialect });
    }, 120_000);
    afterAll(() => db?.close(), 120_000);

    it('run refuses a session outside a transaction with no_transaction, and runs nothing', async () => {
      const error = await runError(
        db.bare((s) => guard.run(s, "INSERT INTO notes VALUES (5, 'x')", { mode: 'execute' })),
      );
      expect(error).toBeInstanceOf(GuardRunError);
      expect(error.code).toBe('no_transaction');
      expect(error.hint).toContain('runInTransaction');
      expect(await db.count()).toBe(0);
      const script = await runError(db.bare((s) => guard.run(s, failing, { mode: 'script' })));
      expect(script.code).toBe('no_transaction');
      expect(await db.count()).toBe(0);
    });

    it('runInTransaction: the second statement fails, nothing stays; a good script commits', async () => {
      const error = await runError(db.bare((s) => runInTransaction(guard, s, failing, { mode: 'script' })));
      expect(error.code).toBe('sql_execution_failed');
      expect(error.details).toMatchObject({ statementIndex: 1, sqlstate: '23505' });
      expect(await db.count()).toBe(0);
      // The session is usable afterwards, outside a transaction again.
      const result = await db.bare((s) =>
        runInTransaction(
          guard,
          s,
          "INSERT INTO notes VALUES (1, 'one'); INSERT INTO notes VALUES (2, 'two')",
          {
            mode: 'script',
          },
        ),
      );
      expect(result.statements.map((r) => r.rowCount)).toEqual([1, 1]);
      expect(await db.count()).toBe(2);
      await db.exec('DELETE FROM notes');
    });

    it('proves the transaction in the first round trip: by a prelude that opens it, else by a probe', async () => {
      const sql = 'SELECT count(*) AS n FROM notes';
      const byPrelude = await db.bare(async (s) => {
        const { session, sent } = recording(s);
        await runInTransaction(guard, session, sql, { mode: 'query' });
        return sent;
      });
      expect(byPrelude[0]).toMatch(/^BEGIN/);
      expect(byPrelude.join('\n')).not.toContain('SAVEPOINT');
      const byProbe = await db.inTransaction(async (s) => {
        const { session, sent } = recording(s);
        await guard.run(session, sql, { mode: 'query' });
        return sent;
      });
      expect(byProbe[0]).toMatch(/^SAVEPOINT sql_guard_transaction/);
    });

    it("in the caller's transaction: the second statement fails, the rollback leaves nothing", async () => {
      const error = await runError(db.inTransaction((s) => guard.run(s, failing, { mode: 'script' })));
      expect(error.details).toMatchObject({ statementIndex: 1, sqlstate: '23505' });
      expect(await db.count()).toBe(0);
    });
  },
);
