import {
  createGuard,
  grantStatements,
  introspectDialect,
  type Mode,
  type RunResult,
  runInTransaction,
} from '@expense/sql-guard';
import { pgOutputSettingsOption, pgSession } from '@expense/sql-guard/pg';
import pg from 'pg';
import { shopRows, shopSchema } from './schema.js';

export interface ShopAgent {
  /** Runs an agent's SQL for one tenant, through the guard, as the restricted role. */
  ask(tenant: number, sql: string, mode: Mode): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * An agent's SQL against the shop, one tenant at a time. The whole setup is the marked part: the dialect is read
 * from the database (the relations and the operations the role was granted, the columns in table order: none typed
 * by hand), the role is granted exactly it, and each run sets the tenant in its prelude on a connection that runs as
 * that role, so row-level security shows the tenant's rows only. `admin` is a superuser's pool (grantStatements
 * changes who may execute the functions of pg_catalog).
 */
export async function shopAgent(admin: pg.Pool, connectionString: string, role: string): Promise<ShopAgent> {
  // setup: begin (the example's test counts these lines: at most 10)
  const agents = new pg.Pool({ connectionString, options: `${pgOutputSettingsOption} -c role=${role}` });
  const functions = ['count', 'sum', 'min', 'max', 'coalesce'];
  const castTypes = ['text', 'integer', 'numeric', 'date'];
  const dialect = await introspectDialect(admin, { role, functions, castTypes });
  for (const statement of grantStatements(dialect, role)) await admin.query(statement);
  const guard = await createGuard({ dialect });
  const run = (client: pg.PoolClient, tenant: number, sql: string, mode: Mode) => {
    const prelude = (check: string) => [`SET LOCAL shop.tenant = '${tenant}'`, `SELECT ${check}`];
    return runInTransaction(guard, pgSession(client), sql, { mode, around: { prelude } });
  };
  // setup: end
  agents.on('error', () => {});
  return {
    ask: async (tenant, sql, mode) => {
      if (!Number.isSafeInteger(tenant)) throw new TypeError('tenant: an integer');
      const client = await agents.connect();
      try {
        return await run(client, tenant, sql, mode);
      } finally {
        client.release();
      }
    },
    close: () => agents.end(),
  };
}

/** The superuser's pool that makes the schema and applies the grants. */
export const shopPool = (connectionString: string) => new pg.Pool({ connectionString });

/**
 * The example's own database and role (made fresh on every start, dropped at the end), so it never writes into
 * `postgres` or yours and leaves nothing behind; with DATABASE_URL, that database (empty) and its server's role.
 */
async function exampleDatabase(): Promise<{ url: string; role: string; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL)
    return { url: process.env.DATABASE_URL, role: 'shop_agent', drop: async () => {} };
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const name = `expense_example_shop_${suffix}`;
  const role = `shop_agent_${suffix}`;
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
  return {
    url: `${server}/${name}`,
    role,
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin(`DROP ROLE IF EXISTS ${role}`);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const database = await exampleDatabase();
  const pool = shopPool(database.url);
  pool.on('error', (error) => console.error('idle connection lost:', error.message));
  try {
    await pool.query(shopSchema(database.role) + shopRows);
    const agent = await shopAgent(pool, database.url, database.role);
    const show = async (tenant: number, sql: string, mode: Mode) =>
      console.log(
        JSON.stringify(
          await agent.ask(tenant, sql, mode).catch((error: Error & { code?: string }) => ({
            code: error.code,
            message: error.message,
          })),
        ),
      );
    await show(
      1,
      'SELECT c.name, count(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY c.name',
      'query',
    );
    await show(2, 'SELECT * FROM customers', 'query');
    await show(1, 'SELECT email FROM customers WHERE tenant_id = 2', 'query');
    await show(1, 'SELECT pg_sleep(10)', 'query');
    await agent.close();
  } finally {
    await pool.end();
    await database.drop();
  }
}
