import { createGuard, type Dialect, GuardRunError, type RunResult } from '@expense/sql-guard';
import { pgSession } from '@expense/sql-guard/pg';
import pg from 'pg';

/** Your own tables, your own rules: an agent may read `notes` and add to it, and count things. */
export const notesDialect: Dialect = {
  relations: { notes: { operations: ['select', 'insert'], columns: ['id', 'body', 'day'] } },
  functions: ['count'],
  castTypes: ['text', 'integer', 'date'],
};

export type Answer =
  | { ok: true; result: RunResult }
  | { ok: false; code: string; message: string; hint?: string; line?: number; column?: number };

/**
 * Runs untrusted SQL in a transaction of its own: the guard refuses what is outside the dialect before any
 * database work, and caps what it runs (20 rows back with the exact total, 5 rows changed, 2 seconds).
 * The guard is the first layer: in production also connect as a role holding only the grants of the
 * dialect (here SELECT and INSERT on notes), as @expense/server does with its restricted role and RLS.
 */
export async function createAgentSql(pool: pg.Pool) {
  const guard = await createGuard({
    dialect: notesDialect,
    limits: { maxReturnedRows: 20, maxAffectedRows: 5, deadlineMs: 2_000 },
  });
  return async function ask(sql: string, mode: 'query' | 'execute'): Promise<Answer> {
    const checked = guard.check(sql, { mode });
    if (!checked.ok) {
      const { code, message, hint, position } = checked.error;
      return { ok: false, code, message, hint, line: position?.line, column: position?.column };
    }
    const client = await pool.connect();
    try {
      await client.query(mode === 'query' ? 'BEGIN READ ONLY' : 'BEGIN');
      const result = await guard.run(pgSession(client, { cancelWith: pool.options }), sql, { mode, checked });
      await client.query('COMMIT');
      return { ok: true, result };
    } catch (error) {
      await client.query('ROLLBACK');
      // Every refusal of run (the check's too, a GuardCheckError) is a GuardRunError with a code.
      if (error instanceof GuardRunError) return { ok: false, code: error.code, message: error.message };
      throw error;
    } finally {
      client.release();
    }
  };
}

/** The example's own database, made fresh and dropped at the end (so it leaves nothing behind); or DATABASE_URL's. */
async function exampleDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: async () => {} };
  const name = `expense_example_guard_${process.pid}_${Date.now().toString(36)}`;
  const server = 'postgres://postgres@127.0.0.1:5432';
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: `${server}/postgres` });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: `${server}/${name}`, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const database = await exampleDatabase();
  const pool = new pg.Pool({ connectionString: database.url });
  // An idle connection lost to a restart or a terminated backend is reported here; without a listener, Node exits.
  pool.on('error', (error) => console.error('idle connection lost:', error.message));
  try {
    await pool.query(
      'CREATE TABLE IF NOT EXISTS notes (id serial PRIMARY KEY, body text NOT NULL, day date)',
    );
    const ask = await createAgentSql(pool);
    console.log(JSON.stringify(await ask("INSERT INTO notes (body) VALUES ('hello')", 'execute')));
    console.log(JSON.stringify(await ask('SELECT count(*) AS n FROM notes', 'query')));
    console.log(JSON.stringify(await ask('SELECT pg_sleep(10)', 'query')));
  } finally {
    await pool.end();
    await database.drop();
  }
}
