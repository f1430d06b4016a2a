import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SaasAgent, saasAgent } from './index.js';
import { saasRows, saasSchema } from './schema.js';

const SERVER = 'postgres://postgres@127.0.0.1:5432';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Attacks on the other workspace and on the private columns. Each is sent through the guard, and as the granted role
 * straight to PostgreSQL with no guard in front: neither reaches a private column, another workspace's row or an id
 * oracle.
 */
const attacks = [
  'SELECT password_hash FROM members',
  'SELECT api_token FROM members WHERE id = 3',
  'SELECT * FROM members',
  'SELECT m.* FROM members m',
  'TABLE members',
  'SELECT m FROM members m',
  'SELECT row_to_json(m) FROM members m',
  "SELECT count(*) FROM members WHERE password_hash LIKE 'hash-g%'",
  'SELECT name FROM members NATURAL JOIN projects',
  'SELECT a FROM members AS m(a, b, c, d, e)',
  "UPDATE members SET api_token = 'mine' WHERE id = 3",
  'SELECT name, email FROM members WHERE workspace_id = 2',
  'SELECT title FROM tasks WHERE workspace_id = 2',
  'SELECT title FROM open_tasks WHERE workspace_id = 2',
  "UPDATE tasks SET title = 'x' WHERE workspace_id = 2",
  "INSERT INTO tasks (workspace_id, project_id, title) VALUES (2, 2, 'x')",
  'SELECT secret FROM pg_authid',
  "SELECT set_config('app.workspace', '2', true)",
];

describe('a multi-tenant SaaS adopted with no column typed by hand', () => {
  const suffix = randomBytes(5).toString('hex');
  const name = `example_saas_${suffix}`;
  const role = `saas_agent_${suffix}`;
  const url = `${SERVER}/${name}`;
  let pool: pg.Pool;
  let agent: SaasAgent;

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => {});
    await pool.query(saasSchema(role) + saasRows);
    agent = await saasAgent(pool, url, role);
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await pool?.end();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin(`DROP ROLE IF EXISTS ${role}`);
  });

  /** As the role, no guard: the rows, or PostgreSQL's SQLSTATE, message and detail. */
  const direct = async (workspace: number, sql: string) => {
    const client = new pg.Client({ connectionString: url, options: `-c role=${role}` });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL app.workspace = '${workspace}'`);
      return { rows: (await client.query(sql)).rows as Record<string, unknown>[] };
    } catch (error) {
      const e = error as { code?: string; message?: string; detail?: string };
      return { code: e.code, message: e.message, detail: e.detail };
    } finally {
      await client.end();
    }
  };

  it('sets up in a few lines that name no column', async () => {
    const source = await readFile(new URL('./index.ts', import.meta.url), 'utf8');
    const setup = source.slice(source.indexOf('// setup: begin'), source.indexOf('// setup: end'));
    const { rows } = await pool.query<{ name: string }>(
      "SELECT DISTINCT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name <> 'workspace_id'",
    );
    expect(rows.map((r) => r.name).filter((column) => new RegExp(`\\b${column}\\b`).test(setup))).toEqual([]);
  });

  it('answers with the workspace rows: the enum compared, grouped and ordered, the view, the writes', async () => {
    const ask = async (sql: string, mode: 'query' | 'execute' = 'query') =>
      (await agent.ask(1, sql, mode)).statements[0]?.rows;
    expect(await ask('SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status')).toEqual([
      { status: 'todo', n: '1' },
      { status: 'doing', n: '1' },
      { status: 'done', n: '1' },
    ]);
    expect(await ask('SELECT title, project FROM open_tasks ORDER BY title')).toEqual([
      { title: 'Build', project: 'Engine' },
      { title: 'Test', project: 'Engine' },
    ]);
    expect(
      await ask(
        "UPDATE tasks SET status = 'done' WHERE title = 'Test' RETURNING status::text AS s",
        'execute',
      ),
    ).toEqual([{ s: 'done' }]);
    expect(
      await ask(
        'SELECT m.name, count(t.id) AS n FROM members m LEFT JOIN tasks t ON t.assignee_id = m.id GROUP BY m.name ORDER BY m.name',
      ),
    ).toEqual([
      { name: 'Ada', n: '1' },
      { name: 'Alan', n: '1' },
    ]);
  });

  it('the attack corpus reaches no private column and no other workspace, through the guard or as the role', async () => {
    for (const sql of attacks) {
      const mode = /^(UPDATE|INSERT)/.test(sql) ? 'execute' : 'query';
      const viaGuard = await agent.ask(1, sql, mode).then(
        (result) => result.statements[0]?.rows ?? [],
        (error: { code?: string }) => error.code,
      );
      // Refused, or (a filter on the other workspace) nothing.
      expect(typeof viaGuard === 'string' || (Array.isArray(viaGuard) && viaGuard.length === 0), sql).toBe(
        true,
      );
      const asRole = await direct(1, sql);
      if (asRole.rows) {
        // What it returns is the workspace's own and public: no secret, nothing of workspace 2.
        expect(JSON.stringify(asRole.rows), sql).not.toMatch(/hash-|token-|Grace|grace@|Compiler|Parse/);
      } else {
        expect(asRole.code, `${sql}: ${asRole.message}`).toMatch(/^(42501|42P01|42883|42703|42601)$/);
      }
    }
    const { rows } = await pool.query('SELECT api_token FROM members WHERE id = 3');
    expect(rows).toEqual([{ api_token: 'token-grace' }]);
  });

  it("gives no id oracle: another workspace's id fails as a missing one, for keys and for unique columns", async () => {
    const task = (project: number) => `INSERT INTO tasks (project_id, title) VALUES (${project}, 'probe')`;
    const other = await direct(1, task(2)); // workspace 2's project
    const none = await direct(1, task(999));
    expect(other.code).toBe('23503');
    expect(none.code).toBe('23503');
    expect(other.detail?.replace('(1, 2)', '(1, N)')).toBe(none.detail?.replace('(1, 999)', '(1, N)'));
    const viaGuard = await agent
      .ask(1, task(2), 'execute')
      .catch((error: { details?: { sqlstate?: string } }) => error);
    expect(viaGuard).toMatchObject({ details: { sqlstate: '23503' } });
  });
});
