import { randomBytes } from 'node:crypto';
import { adminQuery, type FreshPostgres, freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgOutputSettingsOption, pgSession } from '../../src/adapters/pg.js';
import {
  createGuard,
  type Dialect,
  grantStatements,
  introspectDialect,
  runInTransaction,
  verifyDialect,
} from '../../src/index.js';
import type { Guard, Mode, RunResult } from '../../src/types.js';

/**
 * Issue 38: the guard adopted on a schema built the way applications build theirs. A clinic: private columns kept by
 * column privileges (`patients.ssn`, `doctors.salary`), an enum, a domain, jsonb, a generated column, views, a
 * tenant column on every table with row-level security, composite tenant keys. Nothing here types a column name for
 * the guard: the dialect is read from the role's grants.
 */
const suffix = randomBytes(5).toString('hex');
const role = `clinic_agent_${suffix}`;
const tenant = "current_setting('clinic.tenant')::integer";
const tables = ['patients', 'doctors', 'appointments', 'rooms'];

const schema = `
CREATE ROLE ${role} NOLOGIN;
CREATE TYPE appointment_status AS ENUM ('booked', 'done', 'cancelled');
-- The adopter's own function, in the dialect's functions: granted beside the built-ins.
CREATE FUNCTION shout(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT t || '!' $$;
-- A function of the schema named as a built-in of the dialect: never granted (min(text) would be taken for it).
CREATE FUNCTION public.min(t text, u text) RETURNS text LANGUAGE sql SECURITY DEFINER AS $$ SELECT 'definer' $$;
-- A domain whose CHECK runs a function outside the dialect (~* is texticregexeq): granted for the check to run.
CREATE DOMAIN email AS text CHECK (VALUE ~* '^[^@ ]+@[^@ ]+$');
CREATE TABLE patients (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, name text NOT NULL, ssn text, contact email,
  profile jsonb NOT NULL DEFAULT '{}', PRIMARY KEY (tenant_id, id)
);
CREATE TABLE doctors (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, name text NOT NULL, salary numeric(10, 2),
  initials text GENERATED ALWAYS AS (upper(left(name, 1))) STORED, PRIMARY KEY (tenant_id, id)
);
CREATE TABLE appointments (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, patient_id integer NOT NULL, doctor_id integer NOT NULL,
  status appointment_status NOT NULL DEFAULT 'booked', day date NOT NULL, PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id),
  FOREIGN KEY (tenant_id, doctor_id) REFERENCES doctors (tenant_id, id)
);
CREATE TABLE rooms (id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, label text NOT NULL, code text NOT NULL,
  PRIMARY KEY (tenant_id, id));
${tables.map((t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY; CREATE POLICY ${t}_tenant ON ${t} USING (tenant_id = ${tenant});`).join('\n')}
-- A plain view: its owner (the superuser) reads patients past the policy.
CREATE VIEW patient_directory AS SELECT id, tenant_id, name FROM patients;
-- security_invoker: the reader's policies apply; rooms itself is not granted.
CREATE VIEW room_board WITH (security_invoker = true) AS SELECT tenant_id, label FROM rooms;
GRANT SELECT (id, tenant_id, name, contact, profile), INSERT, UPDATE ON patients TO ${role};
GRANT SELECT (id, tenant_id, name, initials) ON doctors TO ${role};
GRANT SELECT, INSERT ON appointments TO ${role};
GRANT SELECT ON patient_directory, room_board TO ${role};
INSERT INTO patients (tenant_id, name, ssn, contact) VALUES (1, 'Ada', '111', 'ada@one.example'),
  (1, 'Alan', '222', 'alan@one.example'), (2, 'Grace', '333', 'grace@two.example');
INSERT INTO doctors (tenant_id, name, salary) VALUES (1, 'house', 100), (2, 'quinn', 200);
INSERT INTO appointments (tenant_id, patient_id, doctor_id, status, day) VALUES (1, 1, 1, 'done', '2026-11-01'),
  (1, 2, 1, 'booked', '2026-11-02'), (1, 1, 1, 'booked', '2026-11-03'), (2, 3, 2, 'cancelled', '2026-11-02');
INSERT INTO rooms (tenant_id, label, code) VALUES (1, 'A', 'x1'), (2, 'B', 'x2');
`;
const functions = ['count', 'min', 'max', 'shout'];
const castTypes = ['text', 'integer', 'date'];

describe('a clinic schema adopted as it is: private columns, enum, views, tenant keys, migrations', () => {
  let database: FreshPostgres;
  let admin: pg.Pool;
  let agents: pg.Pool;
  let dialect: Dialect;
  let guard: Guard;

  const ask = async (tenantId: number, sql: string, mode: Mode, using = guard): Promise<RunResult> => {
    const client = await agents.connect();
    try {
      const prelude = (check: string) => [`SET LOCAL clinic.tenant = '${tenantId}'`, `SELECT ${check}`];
      return await runInTransaction(using, pgSession(client), sql, { mode, around: { prelude } });
    } finally {
      client.release();
    }
  };
  const rows = async (tenantId: number, sql: string) =>
    (await ask(tenantId, sql, 'query')).statements[0]?.rows;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('expected a refusal'),
      (error: { code?: string; details?: { sqlstate?: string } }) => error,
    );
  /** As the granted role straight to PostgreSQL, no guard in front: PostgreSQL's error, or the rows. */
  const direct = async (tenantId: number, sql: string) => {
    const client = await agents.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL clinic.tenant = '${tenantId}'`);
      return { rows: (await client.query(sql)).rows };
    } catch (error) {
      const e = error as { code?: string; message?: string; detail?: string };
      return { code: e.code, message: e.message, detail: e.detail };
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  };

  beforeAll(async () => {
    database = await freshPostgres({ prefix: 'sql_guard_clinic' });
    admin = new pg.Pool({ connectionString: database.url, max: 2 });
    admin.on('error', () => {});
    await admin.query(schema);
    agents = new pg.Pool({
      connectionString: database.url,
      max: 2,
      options: `${pgOutputSettingsOption} -c role=${role}`,
    });
    agents.on('error', () => {});
  }, 60_000);
  afterAll(async () => {
    await agents?.end();
    await admin?.end();
    await database?.drop();
    await adminQuery(`DROP ROLE IF EXISTS ${role}`);
  });

  it('introspects private columns as partial relations, the readable columns in table order', async () => {
    dialect = await introspectDialect(admin, { role, functions, castTypes, tenantColumn: 'tenant_id' });
    expect(dialect.relations).toEqual({
      appointments: {
        operations: ['select', 'insert'],
        columns: ['id', 'tenant_id', 'patient_id', 'doctor_id', 'status', 'day'],
      },
      doctors: { operations: ['select'], columns: ['id', 'tenant_id', 'name', 'initials'], partial: true },
      patient_directory: { operations: ['select'], columns: ['id', 'tenant_id', 'name'] },
      patients: {
        operations: ['select', 'insert', 'update'],
        columns: ['id', 'tenant_id', 'name', 'contact', 'profile'],
        partial: true,
      },
      room_board: { operations: ['select'], columns: ['tenant_id', 'label'] },
    });
  });

  it('reports the plain view that reads patients past row-level security; security_invoker cures it', async () => {
    const differences = await verifyDialect(admin, dialect, { role, tenantColumn: 'tenant_id' });
    expect(differences.map(({ kind, relation, table }) => ({ kind, relation, table }))).toEqual([
      { kind: 'view_bypasses_rls', relation: 'patient_directory', table: 'public.patients' },
    ]);
    // The leak it names: tenant 1 reads tenant 2's patients through the view.
    expect((await direct(1, 'SELECT name FROM patient_directory ORDER BY name')).rows).toEqual([
      { name: 'Ada' },
      { name: 'Alan' },
      { name: 'Grace' },
    ]);
    await admin.query('ALTER VIEW patient_directory SET (security_invoker = true)');
    expect(await verifyDialect(admin, dialect, { role, tenantColumn: 'tenant_id' })).toEqual([]);
    // As the superuser, the private columns are readable: the database keeps them private only from the role.
    expect((await verifyDialect(admin, dialect)).map((d) => `${d.kind} ${d.relation}.${d.column}`)).toEqual([
      'extra_column doctors.salary',
      'extra_column patients.ssn',
    ]);
  });

  it('grants exactly the dialect, and what its security_invoker views read underneath (not an extra relation)', async () => {
    for (const statement of grantStatements(dialect, role)) await admin.query(statement);
    expect(await verifyDialect(admin, dialect, { role, tenantColumn: 'tenant_id' })).toEqual([]);
    guard = await createGuard({ dialect });
    expect(await rows(1, 'SELECT label FROM room_board')).toEqual([{ label: 'A' }]);
    expect(await rows(1, 'SELECT name FROM patient_directory ORDER BY name')).toEqual([
      { name: 'Ada' },
      { name: 'Alan' },
    ]);
    expect(await failure(ask(1, 'SELECT label FROM rooms', 'query'))).toMatchObject({
      code: 'relation_not_allowed',
    });
    // Underneath, the role reads only the columns the view reads.
    expect(await direct(1, 'SELECT code FROM rooms')).toMatchObject({ code: '42501' });
  });

  it('compares, groups, orders and casts an enum; reads a domain, jsonb and a generated column', async () => {
    // The adopter's own function of the dialect runs as the role; one named as a built-in does not.
    expect(await rows(1, 'SELECT shout(name) AS s FROM patients ORDER BY name')).toEqual([
      { s: 'Ada!' },
      { s: 'Alan!' },
    ]);
    expect(await failure(ask(1, "SELECT min(name, 'x') AS m FROM patients", 'query'))).toMatchObject({
      code: 'sql_execution_failed',
      details: { sqlstate: '42501' },
    });
    expect(
      await rows(
        1,
        "SELECT status, count(*) AS n, min(day) AS first FROM appointments WHERE status <> 'cancelled' GROUP BY status ORDER BY status",
      ),
    ).toEqual([
      { status: 'booked', n: '2', first: '2026-11-02' },
      { status: 'done', n: '1', first: '2026-11-01' },
    ]);
    expect(
      await rows(
        1,
        "SELECT DISTINCT status::text AS s FROM appointments WHERE status IN ('done', 'booked') ORDER BY s",
      ),
    ).toEqual([{ s: 'booked' }, { s: 'done' }]);
    expect(await rows(1, 'SELECT max(status) AS last FROM appointments')).toEqual([{ last: 'done' }]);
    expect(
      await rows(1, "SELECT name, profile FROM patients WHERE contact = 'ada@one.example' ORDER BY contact"),
    ).toEqual([{ name: 'Ada', profile: {} }]);
    expect(await rows(1, 'SELECT initials FROM doctors')).toEqual([{ initials: 'H' }]);
    const written = await ask(
      1,
      "INSERT INTO patients (name, contact) VALUES ('Edsger', 'e@one.example') RETURNING tenant_id, name",
      'execute',
    );
    expect(written.statements[0]?.rows).toEqual([{ tenant_id: 1, name: 'Edsger' }]);
  });

  it('keeps private columns private: the guard refuses them, and so does PostgreSQL without the guard', async () => {
    for (const sql of ['SELECT ssn FROM patients', 'SELECT * FROM patients', 'SELECT d.* FROM doctors d']) {
      expect(await failure(ask(1, sql, 'query'))).toMatchObject({ code: 'column_not_allowed' });
    }
    for (const sql of [
      'SELECT ssn FROM patients',
      'SELECT * FROM patients',
      'SELECT salary FROM doctors',
      'SELECT count(*) FROM doctors WHERE salary > 150',
      "UPDATE patients SET ssn = 'x' RETURNING id",
      "INSERT INTO patients (name, ssn) VALUES ('x', '1')",
      'SELECT p FROM patients p',
      'SELECT row_to_json(p) FROM patients p',
    ]) {
      expect((await direct(1, sql)).code, sql).toBe('42501');
    }
  });

  it("sees no other tenant's row, and no id oracle: a composite key fails alike for another tenant's id and none", async () => {
    expect((await direct(1, 'SELECT name FROM patients ORDER BY name')).rows).toEqual([
      { name: 'Ada' },
      { name: 'Alan' },
      { name: 'Edsger' },
    ]);
    expect((await direct(1, 'SELECT count(*)::int AS n FROM appointments WHERE tenant_id = 2')).rows).toEqual(
      [{ n: 0 }],
    );
    const grace = (await admin.query("SELECT id FROM patients WHERE name = 'Grace'")).rows[0].id as number;
    const quinn = (await admin.query("SELECT id FROM doctors WHERE name = 'quinn'")).rows[0].id as number;
    const insert = (patient: number, doctor: number) =>
      `INSERT INTO appointments (patient_id, doctor_id, day) VALUES (${patient}, ${doctor}, DATE '2026-12-01')`;
    const other = await direct(1, insert(grace, quinn));
    const none = await direct(1, insert(9999, quinn));
    expect(other.code).toBe('23503');
    expect(none.code).toBe('23503');
    expect(other.message).toBe(none.message);
    expect(other.detail?.replace(String(grace), 'N')).toBe(none.detail?.replace('9999', 'N'));
    // Naming tenant 2 outright is the policy's refusal.
    expect(
      (
        await direct(
          1,
          insert(grace, quinn)
            .replace('(patient_id', '(tenant_id, patient_id')
            .replace(`(${grace}`, `(2, ${grace}`),
        )
      ).code,
    ).toBe('42501');
    // Through the guard the same: PostgreSQL's 23503, the same for both.
    const viaGuard = await failure(ask(1, insert(grace, quinn), 'execute'));
    expect(viaGuard).toMatchObject({ code: 'sql_execution_failed', details: { sqlstate: '23503' } });
  });

  it('reports each foreign key between tenant relations whose key leaves the tenant column out', async () => {
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TABLE invoices (id integer PRIMARY KEY, tenant_id integer NOT NULL,
        appointment_id integer NOT NULL, patient_id integer NOT NULL, UNIQUE (tenant_id, id),
        FOREIGN KEY (tenant_id, appointment_id) REFERENCES appointments (tenant_id, id))`);
      await client.query('ALTER TABLE appointments ADD UNIQUE (id)');
      await client.query(`CREATE TABLE payments (id integer PRIMARY KEY, tenant_id integer NOT NULL,
        invoice_id integer NOT NULL REFERENCES invoices (id), appointment_id integer REFERENCES appointments (id))`);
      const read = await introspectDialect(client, {
        relations: ['appointments', 'invoices', 'payments'],
        functions: [],
        castTypes: [],
        tenantColumn: 'tenant_id',
      });
      const differences = await verifyDialect(client, read, { tenantColumn: 'tenant_id' });
      // Read as the superuser without a role, and the new tables without row-level security: said too.
      expect(differences.map(({ kind, relation, constraint }) => ({ kind, relation, constraint }))).toEqual([
        { kind: 'role_bypasses_rls', relation: 'appointments', constraint: undefined },
        { kind: 'tenant_table_without_rls', relation: 'invoices', constraint: undefined },
        { kind: 'tenant_table_without_rls', relation: 'payments', constraint: undefined },
        { kind: 'cross_tenant_reference', relation: 'payments', constraint: 'payments_appointment_id_fkey' },
        { kind: 'cross_tenant_reference', relation: 'payments', constraint: 'payments_invoice_id_fkey' },
      ]);
      expect(differences.find((d) => d.kind === 'cross_tenant_reference')?.message).toContain('tenant_id');
      expect(await verifyDialect(client, read)).toEqual([]);
      await expect(
        introspectDialect(client, {
          relations: ['payments'],
          functions: [],
          castTypes: [],
          tenantColumn: 'tenant',
        }),
      ).rejects.toMatchObject({ code: 'introspection_failed' });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('after a migration: the verified connection answers dialect_drift, and the documented order adopts it again', async () => {
    // Every pooled connection has verified the dialect.
    await Promise.all([
      rows(1, 'SELECT count(*) AS n FROM appointments'),
      rows(1, 'SELECT count(*) AS n FROM patients'),
    ]);
    await admin.query('ALTER TABLE patients RENAME COLUMN contact TO email');
    await admin.query('ALTER TABLE appointments ADD COLUMN note text');
    await admin.query('ALTER TABLE doctors DROP COLUMN initials');
    await admin.query(
      'ALTER TABLE doctors ADD COLUMN initials text GENERATED ALWAYS AS (upper(left(name, 2))) STORED',
    );
    await admin.query(`DROP VIEW room_board; DROP TABLE rooms; CREATE TABLE rooms (id serial, tenant_id integer NOT NULL
      DEFAULT ${tenant}, label text NOT NULL, code text NOT NULL, PRIMARY KEY (tenant_id, id));
      ALTER TABLE rooms ENABLE ROW LEVEL SECURITY; CREATE POLICY rooms_tenant ON rooms USING (tenant_id = ${tenant});
      CREATE VIEW room_board WITH (security_invoker = true) AS SELECT tenant_id, label FROM rooms`);
    // The run that meets the renamed column verifies again once its transaction is rolled back (runInTransaction).
    const first = await failure(ask(1, "SELECT name FROM patients WHERE contact = 'x@y'", 'query'));
    expect(first).toMatchObject({ code: 'dialect_drift' });
    expect(JSON.stringify(first)).toMatch(/contact/);
    for (let i = 0; i < 2; i++) {
      const drift = await failure(ask(1, 'SELECT count(*) AS n FROM appointments', 'query'));
      expect(drift).toMatchObject({ code: 'dialect_drift' });
    }
    // migrate → grant the role its table operations → introspectDialect → grantStatements
    await admin.query(`GRANT SELECT (id, tenant_id, name, email, profile), INSERT, UPDATE ON patients TO ${role};
      GRANT SELECT (id, tenant_id, name, initials) ON doctors TO ${role};
      GRANT SELECT, INSERT ON appointments TO ${role};
      GRANT SELECT ON patient_directory, room_board TO ${role}`);
    const again = await introspectDialect(admin, { role, functions, castTypes, tenantColumn: 'tenant_id' });
    expect(again.relations.patients?.columns).toEqual(['id', 'tenant_id', 'name', 'email', 'profile']);
    expect(again.relations.appointments?.columns).toContain('note');
    expect(again.relations.doctors).toMatchObject({
      columns: ['id', 'tenant_id', 'name', 'initials'],
      partial: true,
    });
    for (const statement of grantStatements(again, role)) await admin.query(statement);
    expect(await verifyDialect(admin, again, { role, tenantColumn: 'tenant_id' })).toEqual([]);
    const adopted = await createGuard({ dialect: again });
    expect(
      (await ask(1, 'SELECT name, initials FROM doctors', 'query', adopted)).statements[0]?.rows,
    ).toEqual([{ name: 'house', initials: 'HO' }]);
    expect((await ask(1, 'SELECT label FROM room_board', 'query', adopted)).statements[0]?.rows).toEqual([]);
    expect(
      (await ask(1, "SELECT count(*) AS n FROM patients WHERE email LIKE '%@one.example'", 'query', adopted))
        .statements[0]?.rows,
    ).toEqual([{ n: '3' }]);
  });

  it('throws errors with stable codes', async () => {
    await expect(
      introspectDialect(admin, { relations: ['nope'], functions: [], castTypes: [] }),
    ).rejects.toMatchObject({
      code: 'introspection_failed',
      problems: ['relation public.nope does not exist'],
    });
    await expect(
      createGuard({
        dialect: {
          relations: { t: { operations: ['selec'], columns: ['a'] } },
          functions: [],
          castTypes: [],
        } as unknown as Dialect,
      }),
    ).rejects.toMatchObject({ code: 'invalid_dialect' });
    expect(() => grantStatements(dialect, '')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    const broken = new pg.Pool({ connectionString: database.url, max: 1, options: '-c role=nobody_at_all' });
    broken.on('error', () => {});
    await expect(introspectDialect(broken, { functions: [], castTypes: [] })).rejects.toMatchObject({
      code: 'introspection_failed',
    });
    await broken.end();
  });
});
