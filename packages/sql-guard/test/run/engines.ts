/**
 * Real databases for the run tests: PostgreSQL (a fresh database per file, @expense/test-kit's freshPostgres),
 * PGlite in-process, PGlite in a worker.
 */
import { rm } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { emptyPgliteDir, engineSelected, freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { pgSession } from '../../src/adapters/pg.js';
import { PGliteWorkerHost, pgliteSession } from '../../src/adapters/pglite.js';
import { rawParsers } from '../../src/adapters/pglite-protocol.js';
import type { Dialect, SqlSession } from '../../src/types.js';

export type EngineName = 'postgres' | 'pglite' | 'pglite-worker';
/** Those of EXPENSE_TEST_ENGINES (test-kit's engineSelected: both PGlite ones under `pglite`). */
export const engineNames: EngineName[] = (['postgres', 'pglite', 'pglite-worker'] as const).filter((name) =>
  engineSelected(name === 'postgres' ? 'postgres' : 'pglite'),
);

export interface Engine {
  name: EngineName;
  /** The test's own SQL (not through the guard), committed. */
  exec(sql: string): Promise<void>;
  /** Rows of the test's own query, values as text. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** Runs fn in a transaction; commits unless fn throws or `rollback` is set (then rolls back, rethrows). */
  transaction<T>(fn: (session: SqlSession) => Promise<T>, options?: { rollback?: boolean }): Promise<T>;
  close(): Promise<void>;
}

class Rollback extends Error {
  constructor(readonly value: unknown) {
    super('rollback');
  }
}

async function finish<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof Rollback) return error.value as T;
    throw error;
  }
}

export async function openEngine(name: EngineName): Promise<Engine> {
  if (name === 'postgres') return openPostgres();
  if (name === 'pglite') return openPglite();
  return openWorker();
}

async function openPostgres(): Promise<Engine> {
  const database = await freshPostgres({ prefix: 'sql_guard_run' });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // pool.end() resolves before its sockets close, so the DROP … WITH (FORCE) in close() can terminate a backend
  // whose client is still ending: without this listener the Pool would throw that as an uncaught error.
  pool.on('error', () => {});
  return {
    name: 'postgres',
    exec: async (sql) => void (await pool.query(sql)),
    rows: async (sql) =>
      (await pool.query({ text: sql, types: { getTypeParser: () => (v: string) => v } })).rows,
    async transaction(fn, options = {}) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn(pgSession(client, { cancelWith: pool }));
        await client.query(options.rollback ? 'ROLLBACK' : 'COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      try {
        await pool.end();
      } finally {
        await database.drop();
      }
    },
  };
}

/**
 * An in-process PGlite on a copy of the run's blank data directory: no initdb, 3–5x faster to open than an empty
 * in-memory one. close() closes it and removes the copy.
 */
export async function blankPglite(): Promise<{ db: PGlite; close(): Promise<void> }> {
  const dataDir = await emptyPgliteDir('sql-guard-pglite-');
  const db = await PGlite.create({ dataDir });
  return {
    db,
    async close() {
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function openPglite(): Promise<Engine> {
  const { db, close } = await blankPglite();
  return {
    name: 'pglite',
    exec: async (sql) => void (await db.exec(sql)),
    rows: async (sql) => (await db.query<Record<string, unknown>>(sql, [], { parsers: rawParsers(db) })).rows,
    transaction: (fn, options = {}) =>
      finish(
        db.transaction(async (tx) => {
          const value = await fn(pgliteSession(tx, db));
          if (options.rollback) throw new Rollback(value);
          return value;
        }),
      ),
    close,
  };
}

async function openWorker(): Promise<Engine> {
  // A copy of the run's blank data directory: the host skips initdb and the restart after it.
  const dataDir = await emptyPgliteDir('sql-guard-run-');
  const host = await PGliteWorkerHost.open({ dataDir });
  return {
    name: 'pglite-worker',
    exec: async (sql) => void (await host.exec(sql)),
    rows: async (sql) => (await host.query(sql)).rows,
    transaction: (fn, options = {}) =>
      finish(
        host.transaction(async (tx) => {
          const value = await fn(tx);
          if (options.rollback) throw new Rollback(value);
          return value;
        }),
      ),
    async close() {
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The tables the run tests use, and a dialect that allows them. */
export const schema = `
CREATE TABLE items (
  id integer PRIMARY KEY,
  name text NOT NULL UNIQUE,
  amount numeric(12,2) NOT NULL DEFAULT 0
);
CREATE TABLE audit (id serial PRIMARY KEY, note text);
CREATE TABLE numbers (n integer PRIMARY KEY);
INSERT INTO numbers SELECT g FROM generate_series(1, 250) g;
CREATE TABLE vals (
  id integer PRIMARY KEY, num numeric, big bigint, i4 integer, i2 smallint, f4 real, f8 double precision,
  t text, vc varchar(20), u uuid, tstz timestamptz, ts timestamp, d date, iv interval, b boolean, j jsonb,
  arr integer[]
);
INSERT INTO vals VALUES
  (1, 12345678901234567890.123456789, 9223372036854775807, 2147483647, -32768, 0.1, 0.1,
   'it''s \\ "quoted"', 'varchar', '6f1c0b6e-8f3a-4a5e-9c1d-2b3a4c5d6e7f',
   '2026-01-02 03:04:05.123456+02', '2026-01-02 03:04:05.5', '2026-08-09', '1 year 2 mons 3 days 04:05:06.5',
   true, '{"a": [1, 2.50, "x"], "b": null}', '{1,NULL,3}'),
  (2, 'NaN', -1, 0, 0, 'Infinity', '-Infinity', '', NULL, NULL, '2026-06-30 23:59:59+00', '0044-03-15 12:00:00 BC',
   '0044-03-15 BC', '-00:00:01', false, '[]', '{}'),
  (3, NULL, NULL, NULL, NULL, 'NaN', 1e300, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
`;

export const testDialect: Dialect = {
  relations: {
    items: { operations: ['select', 'insert', 'update', 'delete'], columns: ['id', 'name', 'amount'] },
    audit: { operations: ['select', 'insert', 'update', 'delete'], columns: ['id', 'note'] },
    numbers: { operations: ['select'], columns: ['n'] },
    vals: {
      operations: ['select'],
      columns: [
        'id',
        'num',
        'big',
        'i4',
        'i2',
        'f4',
        'f8',
        't',
        'vc',
        'u',
        'tstz',
        'ts',
        'd',
        'iv',
        'b',
        'j',
        'arr',
      ],
    },
  },
  functions: ['count', 'sum', 'min', 'max', 'avg', 'coalesce'],
  castTypes: ['text', 'integer', 'int', 'int4', 'bigint', 'int8', 'numeric', 'date', 'timestamptz'],
};
