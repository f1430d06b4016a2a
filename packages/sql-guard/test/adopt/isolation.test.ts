import { randomBytes } from 'node:crypto';
import { adminQuery, type FreshPostgres, freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dialect, introspectDialect, verifyDialect } from '../../src/index.js';
import type { DialectDifference } from '../../src/types.js';

/**
 * Tenant isolation that verifyDialect used to pass ([] while another tenant's rows could be read): a partition and an
 * inherited child read by name (they do not take their parent's row-level security), a tenant table without it, a
 * role that bypasses it (BYPASSRLS, a member of the tables' owner), a security_invoker view over a partition, a view
 * read with its owner's rights where the owner's own policy shows every row, a view over a SECURITY DEFINER
 * function, and a foreign key to a tenant table outside the dialect (an id oracle). Each is shown to leak as the
 * role, then reported; FORCE ROW LEVEL SECURITY and security_invoker cure what they cure.
 */
const suffix = randomBytes(5).toString('hex');
const role = `shop_agent_${suffix}`;
const owner = `shop_owner_${suffix}`;
const reporter = `shop_reporter_${suffix}`;
const tenant = "current_setting('shop.tenant')::integer";
const rls = (table: string) =>
  `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY; CREATE POLICY ${table}_tenant ON ${table} USING (tenant_id = ${tenant});`;

const schema = `
CREATE ROLE ${role} NOLOGIN; CREATE ROLE ${owner} NOLOGIN; CREATE ROLE ${reporter} NOLOGIN;
GRANT ALL ON SCHEMA public TO ${owner};
SET ROLE ${owner};
CREATE TABLE orders (tenant_id integer NOT NULL, id integer NOT NULL, total integer NOT NULL, at date NOT NULL,
  PRIMARY KEY (tenant_id, id, at)) PARTITION BY RANGE (at);
CREATE TABLE orders_2026 PARTITION OF orders FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
${rls('orders')}
CREATE POLICY orders_reporter ON orders TO ${reporter} USING (true);
CREATE TABLE notes (tenant_id integer NOT NULL, body text NOT NULL);
CREATE TABLE urgent_notes (level integer NOT NULL DEFAULT 1) INHERITS (notes);
${rls('notes')}
CREATE TABLE teams (tenant_id integer NOT NULL, id integer PRIMARY KEY);
${rls('teams')}
CREATE TABLE members (tenant_id integer NOT NULL, team_id integer NOT NULL REFERENCES teams (id));
${rls('members')}
CREATE TABLE audit (tenant_id integer NOT NULL, what text NOT NULL);
CREATE FUNCTION order_totals() RETURNS TABLE (tenant_id integer, total integer) LANGUAGE sql SECURITY DEFINER
  AS 'SELECT tenant_id, total FROM orders';
CREATE VIEW orders_this_year WITH (security_invoker = true) AS SELECT tenant_id, id, total FROM orders_2026;
CREATE VIEW order_totals_view WITH (security_invoker = true) AS SELECT tenant_id, total FROM order_totals();
INSERT INTO orders VALUES (1, 1, 10, '2026-01-05'), (2, 1, 999, '2026-01-06');
INSERT INTO notes VALUES (1, 'one'); INSERT INTO urgent_notes (tenant_id, body) VALUES (2, 'two');
INSERT INTO teams VALUES (1, 1), (2, 2);
RESET ROLE;
GRANT SELECT ON orders TO ${reporter};
CREATE VIEW orders_report AS SELECT tenant_id, id, total FROM orders;
ALTER VIEW orders_report OWNER TO ${reporter};
GRANT SELECT ON orders, orders_2026, notes, urgent_notes, audit, orders_this_year, order_totals_view, orders_report TO ${role};
GRANT SELECT, INSERT ON members TO ${role};
`;

const kinds = (differences: DialectDifference[]) =>
  differences.map(({ kind, relation, table, function: fn }) =>
    `${kind} ${relation} ${table ?? fn ?? ''}`.trim(),
  );

const ISOLATION = new Set([
  'tenant_table_without_rls',
  'role_bypasses_rls',
  'view_bypasses_rls',
  'view_reads_with_owner_rights',
  'view_calls_definer_function',
  'cross_tenant_reference',
]);
/** The differences about tenant isolation (not the relations and operations the role holds beyond a dialect). */
const isolation = (differences: DialectDifference[]) => differences.filter((d) => ISOLATION.has(d.kind));

describe('verifyDialect keeps tenants apart: every way row-level security is passed is reported', () => {
  let database: FreshPostgres;
  let admin: pg.Pool;
  let agents: pg.Pool;
  let dialect: Dialect;

  /** As the role, straight to PostgreSQL (no guard): what it reads of tenant 1's data. */
  const asRole = async (sql: string, as = role) => {
    const client = await agents.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL ROLE ${as}`);
      await client.query(`SET LOCAL shop.tenant = '1'`);
      return (await client.query(sql)).rows;
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  };

  beforeAll(async () => {
    database = await freshPostgres({ prefix: 'sql_guard_isolation' });
    admin = new pg.Pool({ connectionString: database.url, max: 2 });
    admin.on('error', () => {});
    await admin.query(schema);
    agents = new pg.Pool({ connectionString: database.url, max: 2 });
    agents.on('error', () => {});
  }, 60_000);
  afterAll(async () => {
    await agents?.end();
    await admin?.end();
    await database?.drop();
    for (const r of [role, owner, reporter]) await adminQuery(`DROP ROLE IF EXISTS ${r}`);
  });

  it('leaves partitions out of an introspected dialect: they are read through their parent', async () => {
    dialect = await introspectDialect(admin, {
      role,
      functions: ['count'],
      castTypes: [],
      tenantColumn: 'tenant_id',
    });
    expect(Object.keys(dialect.relations).sort()).toEqual([
      'audit',
      'members',
      'notes',
      'order_totals_view',
      'orders',
      'orders_report',
      'orders_this_year',
      'urgent_notes',
    ]);
  });

  it("reports each way to another tenant's rows, each of which leaks as the role", async () => {
    // The leaks, as the role with tenant 1 set.
    expect(await asRole('SELECT total FROM orders ORDER BY total')).toEqual([{ total: 10 }]);
    expect(await asRole('SELECT total FROM orders_2026 ORDER BY total')).toEqual([
      { total: 10 },
      { total: 999 },
    ]);
    expect(await asRole('SELECT total FROM orders_this_year ORDER BY total')).toHaveLength(2);
    expect(await asRole('SELECT total FROM order_totals_view ORDER BY total')).toHaveLength(2);
    expect(await asRole('SELECT total FROM orders_report ORDER BY total')).toHaveLength(2);
    expect(await asRole('SELECT body FROM urgent_notes')).toEqual([{ body: 'two' }]);

    const differences = await verifyDialect(admin, dialect, { role, tenantColumn: 'tenant_id' });
    expect(kinds(differences)).toEqual([
      'tenant_table_without_rls audit public.audit',
      'tenant_table_without_rls orders_this_year public.orders_2026',
      'tenant_table_without_rls urgent_notes public.urgent_notes',
      'view_calls_definer_function order_totals_view public.order_totals',
      'view_reads_with_owner_rights orders_report public.orders',
      'cross_tenant_reference members',
      // The partition, left out of the dialect, is still granted: grantStatements revokes it.
      'extra_relation public.orders_2026',
    ]);
    const said = (kind: string) => differences.find((d) => d.kind === kind)?.message ?? '';
    expect(said('cross_tenant_reference')).toContain('public.teams');
    expect(said('tenant_table_without_rls')).toContain('row-level security');
    expect(said('view_reads_with_owner_rights')).toContain(reporter);
    expect(said('view_calls_definer_function')).toContain('SECURITY INVOKER');
    // The foreign key is an oracle: another tenant's team id is accepted, an unknown one refused.
    const client = await agents.connect();
    try {
      await client.query(`BEGIN; SET LOCAL ROLE ${role}; SET LOCAL shop.tenant = '1'`);
      await client.query('INSERT INTO members VALUES (1, 2)');
      await expect(client.query('INSERT INTO members VALUES (1, 99)')).rejects.toMatchObject({
        code: '23503',
      });
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  });

  it('reports a role the policies do not apply to: BYPASSRLS, or a member of the owner unless RLS is forced', async () => {
    const only = { relations: ['orders', 'notes'], functions: [], castTypes: [], tenantColumn: 'tenant_id' };
    const tables = await introspectDialect(admin, { ...only, role });
    expect(isolation(await verifyDialect(admin, tables, { role, tenantColumn: 'tenant_id' }))).toEqual([]);

    await admin.query(`GRANT ${owner} TO ${role}`);
    expect(await asRole('SELECT total FROM orders ORDER BY total')).toHaveLength(2);
    const owned = isolation(await verifyDialect(admin, tables, { role, tenantColumn: 'tenant_id' }));
    expect(kinds(owned)).toEqual([
      'role_bypasses_rls notes public.notes',
      'role_bypasses_rls orders public.orders',
    ]);
    expect(owned[0]?.message).toContain(`member of its owner ${owner}`);
    await admin.query(
      'ALTER TABLE orders FORCE ROW LEVEL SECURITY; ALTER TABLE notes FORCE ROW LEVEL SECURITY',
    );
    expect(await asRole('SELECT total FROM orders ORDER BY total')).toEqual([{ total: 10 }]);
    expect(isolation(await verifyDialect(admin, tables, { role, tenantColumn: 'tenant_id' }))).toEqual([]);
    await admin.query(`REVOKE ${owner} FROM ${role}`);

    await admin.query(`ALTER ROLE ${role} BYPASSRLS`);
    expect(await asRole('SELECT total FROM orders ORDER BY total')).toHaveLength(2);
    const bypassing = isolation(await verifyDialect(admin, tables, { role, tenantColumn: 'tenant_id' }));
    expect(kinds(bypassing)).toEqual([
      'role_bypasses_rls notes public.notes',
      'role_bypasses_rls orders public.orders',
    ]);
    expect(bypassing[0]?.message).toContain('has BYPASSRLS');
    await admin.query(`ALTER ROLE ${role} NOBYPASSRLS`);
  });

  it('passes what keeps tenants apart: row-level security on each, security_invoker views, a plain role', async () => {
    await admin.query(`${rls('orders_2026')} ${rls('urgent_notes')} ${rls('audit')}
      ALTER VIEW orders_report SET (security_invoker = true)`);
    const kept = await introspectDialect(admin, {
      role,
      relations: [
        'orders',
        'orders_2026',
        'notes',
        'urgent_notes',
        'audit',
        'orders_this_year',
        'orders_report',
      ],
      functions: [],
      castTypes: [],
      tenantColumn: 'tenant_id',
    });
    expect(isolation(await verifyDialect(admin, kept, { role, tenantColumn: 'tenant_id' }))).toEqual([]);
    expect(await asRole('SELECT total FROM orders_this_year')).toEqual([{ total: 10 }]);
    // Without the tenant column the isolation is not checked (verifyDialect then compares names and grants only).
    expect(kinds(await verifyDialect(admin, dialect, { role }))).toEqual([
      'extra_relation public.orders_2026',
    ]);
  });
});
