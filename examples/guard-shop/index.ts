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

/**
 * An agent's SQL against the shop, one tenant at a time. The whole setup: the dialect is read from the database (no
 * column typed by hand), the role is granted exactly it, and each run switches to that role with the tenant set in
 * the prelude, so row-level security shows the tenant's rows only.
 */
export async function shopAgent(pool: pg.Pool, role: string) {
  const dialect = await introspectDialect(pool, {
    relations: {
      customers: ['select'],
      products: ['select'],
      orders: ['select', 'insert', 'update'],
      order_items: ['select', 'insert'],
    },
    functions: ['count', 'sum', 'min', 'max', 'coalesce'],
    castTypes: ['text', 'integer', 'numeric', 'date'],
  });
  for (const statement of grantStatements(dialect, role)) await pool.query(statement);
  const guard = await createGuard({ dialect });
  return async (tenant: number, sql: string, mode: Mode): Promise<RunResult> => {
    if (!Number.isSafeInteger(tenant)) throw new TypeError('tenant: an integer');
    const client = await pool.connect();
    try {
      const prelude = (check: string) => [
        `SET LOCAL shop.tenant = '${tenant}'`,
        `SET LOCAL ROLE ${role}`,
        `SELECT ${check}`,
      ];
      return await runInTransaction(guard, pgSession(client), sql, { mode, around: { prelude } });
    } finally {
      client.release();
    }
  };
}

/** A pool whose connections carry the output settings the guard checks in the prelude. */
export const shopPool = (connectionString: string) =>
  new pg.Pool({ connectionString, options: pgOutputSettingsOption });

/** The example's own database (made fresh on every start), so it never writes into `postgres` or yours. */
async function exampleDatabaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  try {
    await admin.query('DROP DATABASE IF EXISTS expense_example_shop WITH (FORCE)');
    await admin.query('CREATE DATABASE expense_example_shop');
    await admin.query('DROP ROLE IF EXISTS shop_agent');
  } finally {
    await admin.end();
  }
  return 'postgres://postgres@127.0.0.1:5432/expense_example_shop';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pool = shopPool(await exampleDatabaseUrl());
  pool.on('error', (error) => console.error('idle connection lost:', error.message));
  await pool.query(shopSchema('shop_agent') + shopRows);
  const ask = await shopAgent(pool, 'shop_agent');
  const show = async (tenant: number, sql: string, mode: Mode) =>
    console.log(
      JSON.stringify(
        await ask(tenant, sql, mode).catch((error: Error & { code?: string }) => ({
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
  await pool.end();
}
