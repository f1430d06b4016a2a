import {
  createGuard,
  grantStatements,
  introspectDialect,
  type Mode,
  type RunResult,
  runInTransaction,
  verifyDialect,
} from '@expense/sql-guard';
import { pgOutputSettingsOption, pgSession } from '@expense/sql-guard/pg';
import pg from 'pg';
import { saasRows, saasSchema } from './schema.js';

export interface SaasAgent {
  /** Runs an agent's SQL for one workspace, through the guard, as the restricted role. */
  ask(workspace: number, sql: string, mode: Mode): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * Adopts the schema as it is: the dialect from the role's grants (members partial: its private columns stay out),
 * verified for views past row-level security and keys across workspaces before anything is granted, then the role
 * granted exactly it. No column is named here. `admin` is a superuser's pool.
 */
export async function saasAgent(admin: pg.Pool, connectionString: string, role: string): Promise<SaasAgent> {
  // setup: begin
  const options = { role, functions: ['count', 'min', 'max'], castTypes: ['text', 'integer', 'date'] };
  const dialect = await introspectDialect(admin, { ...options, tenantColumn: 'workspace_id' });
  const unsafe = await verifyDialect(admin, dialect, { role, tenantColumn: 'workspace_id' });
  if (unsafe.length > 0) throw new Error(unsafe.map((d) => d.message).join(' '));
  for (const statement of grantStatements(dialect, role)) await admin.query(statement);
  const guard = await createGuard({ dialect });
  const agents = new pg.Pool({ connectionString, options: `${pgOutputSettingsOption} -c role=${role}` });
  // setup: end
  agents.on('error', () => {});
  return {
    ask: async (workspace, sql, mode) => {
      if (!Number.isSafeInteger(workspace)) throw new TypeError('workspace: an integer');
      const client = await agents.connect();
      try {
        const prelude = (check: string) => [`SET LOCAL app.workspace = '${workspace}'`, `SELECT ${check}`];
        return await runInTransaction(guard, pgSession(client), sql, { mode, around: { prelude } });
      } finally {
        client.release();
      }
    },
    close: () => agents.end(),
  };
}

/** A fresh database and role, dropped at the end (or DATABASE_URL's database, an empty one, and a role `saas_agent`). */
async function exampleDatabase(): Promise<{ url: string; role: string; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL)
    return { url: process.env.DATABASE_URL, role: 'saas_agent', drop: async () => {} };
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
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
  await admin(`CREATE DATABASE expense_example_saas_${suffix}`);
  return {
    url: `${server}/expense_example_saas_${suffix}`,
    role: `saas_agent_${suffix}`,
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS expense_example_saas_${suffix} WITH (FORCE)`);
      await admin(`DROP ROLE IF EXISTS saas_agent_${suffix}`);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const database = await exampleDatabase();
  const admin = new pg.Pool({ connectionString: database.url });
  admin.on('error', (error) => console.error('idle connection lost:', error.message));
  try {
    await admin.query(saasSchema(database.role) + saasRows);
    const agent = await saasAgent(admin, database.url, database.role);
    const show = async (sql: string, mode: Mode = 'query') =>
      console.log(
        JSON.stringify(
          await agent.ask(1, sql, mode).then(
            (result) => result.statements[0]?.rows,
            (error: Error & { code?: string }) => ({ code: error.code, message: error.message }),
          ),
        ),
      );
    await show('SELECT status, count(*) AS n FROM tasks GROUP BY status ORDER BY status');
    await show('SELECT title, project FROM open_tasks ORDER BY title');
    await show('SELECT name, password_hash FROM members');
    await show('SELECT * FROM members');
    await agent.close();
  } finally {
    await admin.end();
    await database.drop();
  }
}
