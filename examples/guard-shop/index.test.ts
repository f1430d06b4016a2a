import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  type GuardCheckError,
  GuardRunError,
  introspectDialect,
  type Mode,
  type RunResult,
  verifyDialect,
} from '@expense/sql-guard';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ShopAgent, shopAgent, shopPool } from './index.js';
import { shopRows, shopSchema } from './schema.js';

const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('the shop: an introspected dialect, exact grants, one tenant per run', () => {
  const suffix = randomBytes(5).toString('hex');
  const name = `example_shop_${suffix}`;
  const role = `shop_agent_${suffix}`;
  let pool: pg.Pool;
  let agent: ShopAgent;
  const ask = (tenant: number, sql: string, mode: Mode): Promise<RunResult> => agent.ask(tenant, sql, mode);

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    pool = shopPool(url);
    pool.on('error', () => {});
    await pool.query(shopSchema(role) + shopRows);
    agent = await shopAgent(pool, url, role);
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await pool?.end();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin(`DROP ROLE IF EXISTS ${role}`);
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as GuardRunError | GuardCheckError,
    );

  it('reaches its first guarded query in at most 10 lines of setup, no column typed by hand', async () => {
    const source = await readFile(new URL('./index.ts', import.meta.url), 'utf8');
    const setup = source.slice(source.indexOf('// setup: begin'), source.indexOf('// setup: end'));
    const lines = setup
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('//'));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(setup).toMatch(/introspectDialect\(/);
    expect(setup).toMatch(/grantStatements\(/);
    expect(setup).toMatch(/runInTransaction\(/);
    const { rows } = await pool.query<{ name: string }>(
      "SELECT DISTINCT column_name AS name FROM information_schema.columns WHERE table_schema = 'public'",
    );
    const typed = rows.map((r) => r.name).filter((column) => new RegExp(`\\b${column}\\b`).test(setup));
    expect(typed).toEqual([]);
  });

  it('the role holds exactly the introspected dialect: operations read from its grants, columns in table order', async () => {
    const read = await introspectDialect(pool, { role, functions: [], castTypes: [] });
    expect(Object.fromEntries(Object.entries(read.relations).map(([n, r]) => [n, r.operations]))).toEqual({
      customers: ['select'],
      order_items: ['select', 'insert'],
      orders: ['select', 'insert', 'update'],
      products: ['select'],
    });
    expect(read.relations.orders?.columns).toEqual(['id', 'tenant_id', 'customer_id', 'placed_on', 'status']);
    expect(await verifyDialect(pool, read, { role, tenantColumn: 'tenant_id' })).toEqual([]);
  });

  it('answers each tenant with its own rows only', async () => {
    const sql =
      'SELECT c.name, count(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY c.name';
    expect((await ask(1, sql, 'query')).statements[0]?.rows).toEqual([
      { name: 'Ada', orders: '1' },
      { name: 'Alan', orders: '1' },
    ]);
    expect((await ask(2, 'SELECT * FROM customers', 'query')).statements[0]?.rows).toEqual([
      { id: 3, tenant_id: 2, name: 'Grace', email: 'grace@example.com' },
    ]);
    expect(
      (await ask(1, 'SELECT email FROM customers WHERE tenant_id = 2', 'query')).statements[0]?.rows,
    ).toEqual([]);
  });

  it('writes within the tenant; a row for another tenant is refused by the policy, and nothing stays', async () => {
    const script =
      "INSERT INTO orders (customer_id, placed_on) VALUES (3, DATE '2026-11-05') RETURNING tenant_id; INSERT INTO order_items (order_id, product_id, quantity) VALUES (3, 3, 1)";
    const written = await ask(2, script, 'script');
    expect(written.statements[0]?.rows).toEqual([{ tenant_id: 2 }]);
    const crossing = await refusal(
      ask(
        2,
        "INSERT INTO orders (customer_id, placed_on) VALUES (3, DATE '2026-11-06'); INSERT INTO orders (tenant_id, customer_id, placed_on) VALUES (1, 1, DATE '2026-11-06')",
        'script',
      ),
    );
    expect(crossing).toBeInstanceOf(GuardRunError);
    expect((crossing as GuardRunError).details).toMatchObject({ statementIndex: 1, sqlstate: '42501' });
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM orders WHERE placed_on = '2026-11-06'");
    expect(rows[0].n).toBe(0);
  });

  it("keys reference within the tenant: another tenant's customer id fails as a missing one does", async () => {
    const client = new pg.Client({
      connectionString: pool.options.connectionString,
      options: `-c role=${role}`,
    });
    await client.connect();
    const attempt = async (customer: number) => {
      await client.query('BEGIN');
      await client.query("SET LOCAL shop.tenant = '1'");
      try {
        await client.query(
          `INSERT INTO orders (customer_id, placed_on) VALUES (${customer}, DATE '2026-11-07')`,
        );
        return undefined;
      } catch (error) {
        return error as { code?: string; detail?: string };
      } finally {
        await client.query('ROLLBACK');
      }
    };
    try {
      const other = await attempt(3); // Grace, tenant 2's
      const none = await attempt(999);
      expect(other?.code).toBe('23503');
      expect(none?.code).toBe('23503');
      expect(other?.detail?.replace('3)', 'N)')).toBe(none?.detail?.replace('999)', 'N)'));
    } finally {
      await client.end();
    }
  });

  it('refuses what is outside the dialect before the database sees it', async () => {
    expect(await refusal(ask(1, 'SELECT pg_sleep(10)', 'query'))).toMatchObject({
      code: 'function_not_allowed',
    });
    expect(await refusal(ask(1, 'DELETE FROM orders', 'execute'))).toMatchObject({
      code: 'operation_not_allowed',
    });
    expect(await refusal(ask(1, 'SELECT o.to_json FROM orders o', 'query'))).toMatchObject({
      code: 'column_not_allowed',
    });
  });
});
