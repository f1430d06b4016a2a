import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, createAgentSql } from './index.js';

const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

describe('the guard on its own, in front of your PostgreSQL tables', () => {
  const name = `example_guard_${randomUUID().replace(/-/g, '')}`;
  let pool: pg.Pool;
  let ask: (sql: string, mode: 'query' | 'execute') => Promise<Answer>;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: ADMIN });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:5432/${name}` });
    // pool.end() resolves before its sockets close; DROP DATABASE … WITH (FORCE) may then terminate a backend
    // whose client is still ending, and a Pool without an 'error' listener turns that into an uncaught error.
    pool.on('error', () => {});
    await pool.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, day date)');
    await pool.query("INSERT INTO notes (body) SELECT 'note ' || n FROM generate_series(1, 50) AS n");
    await pool.query('CREATE TABLE secrets (token text)');
    ask = await createAgentSql(pool);
  });
  afterAll(async () => {
    await pool?.end();
    const admin = new pg.Client({ connectionString: ADMIN });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('answers a read with at most 20 rows and the exact total', async () => {
    const answer = await ask('SELECT id, body FROM notes ORDER BY id', 'query');
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    const [statement] = answer.result.statements;
    expect(statement).toMatchObject({ returnedRowCount: 20, totalRowCount: 50, truncated: true });
    expect(statement!.rows[0]).toEqual({ id: 1, body: 'note 1' });
  });

  it('refuses what is outside the dialect before touching the database, with a position', async () => {
    expect(await ask('SELECT token FROM secrets', 'query')).toMatchObject({
      ok: false,
      code: 'relation_not_allowed',
      line: 1,
      column: 19,
    });
    expect(await ask('SELECT pg_sleep(10)', 'query')).toMatchObject({
      ok: false,
      code: 'function_not_allowed',
    });
    expect(await ask('DELETE FROM notes', 'execute')).toMatchObject({
      ok: false,
      code: 'operation_not_allowed',
    });
    expect(await ask('SELECT 1; DROP TABLE notes', 'query')).toMatchObject({
      ok: false,
      code: 'multiple_statements_not_allowed',
    });
  });

  it('rolls back a write over the cap and keeps a small one', async () => {
    const tooMany = Array.from({ length: 6 }, (_, i) => `('bulk ${i}')`).join(', ');
    expect(await ask(`INSERT INTO notes (body) VALUES ${tooMany}`, 'execute')).toMatchObject({
      ok: false,
      code: 'mutation_row_limit_exceeded',
    });
    expect(await ask("INSERT INTO notes (body) VALUES ('one more')", 'execute')).toMatchObject({ ok: true });
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM notes WHERE body LIKE 'bulk%' OR body = 'one more'",
    );
    expect(rows[0].n).toBe(1);
  });
});
