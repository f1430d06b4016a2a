import { randomBytes } from 'node:crypto';
import { adminQuery, type FreshPostgres, freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSession } from '../../src/adapters/pg.js';
import { createGuard, expenseDialect, grantStatements, verifyDialect } from '../../src/index.js';
import type { Guard } from '../../src/types.js';
import { attackCases } from '../check/attacks.js';
import { allCorpora } from '../check/corpus.js';
import { expenseSchema } from '../check/expense-schema.js';

/**
 * grantStatements gives a role exactly the dialect (issue 25: after the README's grants every query failed with
 * "permission denied for function current_setting", and `SELECT *` returned columns outside the dialect). A fresh
 * role in a fresh database: every legitimate statement of the corpora runs through the guard as that role, and the
 * attacks, sent as that role straight to PostgreSQL with no guard in front, reach nothing beyond the dialect.
 */
const legitimate = allCorpora;

/** What lies beyond the dialect in the test database. */
const beyond = `
CREATE TABLE secrets (id integer PRIMARY KEY, secret text NOT NULL);
INSERT INTO secrets VALUES (1, 'the secret');
CREATE SCHEMA internal;
CREATE TABLE internal.api_keys (key text);
INSERT INTO internal.api_keys VALUES ('k');
CREATE FUNCTION public.leak() RETURNS text LANGUAGE sql AS $$ SELECT 'leaked' $$;
CREATE SEQUENCE public.counter;
`;

/**
 * Attacks on reach, sent without the guard: other relations, catalogs with secrets, functions outside the dialect
 * (the guard corpus's dangerous ones), writes the dialect does not allow, objects the role could create.
 */
const attacks: string[] = [
  'SELECT * FROM secrets',
  'SELECT secret FROM public.secrets',
  'SELECT * FROM internal.api_keys',
  'UPDATE secrets SET secret = 1',
  'SELECT * FROM pg_authid',
  'SELECT * FROM pg_shadow',
  'SELECT * FROM pg_statistic',
  "SELECT set_config('role', 'postgres', false)",
  "SELECT set_config('expense.workspace_id', 'x', true)",
  'SELECT pg_sleep(0.01)',
  "SELECT pg_read_file('/etc/passwd')",
  "SELECT pg_ls_dir('.')",
  "SELECT lo_import('/etc/passwd')",
  'SELECT lo_get(1)',
  'SELECT pg_terminate_backend(1)',
  'SELECT pg_reload_conf()',
  "SELECT query_to_xml('select * from secrets', true, true, '')",
  "SELECT format('%s', 1)",
  "SELECT concat('a', 'b')",
  "SELECT lower('A')",
  'SELECT random()',
  "SELECT nextval('counter')",
  'SELECT pg_advisory_lock(1)',
  'SELECT pg_backend_pid()',
  "SELECT string_agg(note, ',') FROM ledger_entries",
  'SELECT array_agg(amount) FROM ledger_entries',
  'SELECT json_agg(l) FROM ledger_entries l',
  'SELECT row_to_json(l) FROM ledger_entries l',
  'SELECT l.row_to_json FROM ledger_entries l',
  'SELECT to_json(l) FROM ledger_entries l',
  'SELECT now()',
  'SELECT version()',
  'SELECT txid_current()',
  'SELECT * FROM generate_series(1, 2)',
  'SELECT leak()',
  "SELECT dblink('host=x', 'select 1')",
  'UPDATE accounts SET display_name = 1',
  'DELETE FROM fx_rates_daily',
  "INSERT INTO fx_rates_raw (base_currency, quote_currency, rate_date, rate, source) VALUES ('USD', 'EUR', '2026-01-01', 1, 'x')",
  'TRUNCATE ledger_entries',
  'CREATE TABLE mine (a int)',
  'CREATE TEMP TABLE ledger_entries (a int)',
  'CREATE FUNCTION mine() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
  "COPY ledger_entries TO '/tmp/x'",
  'ALTER TABLE ledger_entries DISABLE ROW LEVEL SECURITY',
  'SET ROLE postgres',
  'LOCK TABLE fx_rates_daily',
];

/**
 * The guard's adversarial corpus (test/check/attacks.ts) on what a role can reach: other relations, functions, casts,
 * writes the dialect does not allow, statements other than SELECT/INSERT/UPDATE/DELETE. Left out: the resource
 * attacks (statement_too_complex, and texts over 500 characters: deep nesting, thousands of joins), which no grant
 * can stop and which only the guard refuses; sent straight to a shared PostgreSQL one of them had a backend
 * OOM-killed (the whole server restarts).
 */
const REACH_CODES = new Set([
  'relation_not_allowed',
  'function_not_allowed',
  'type_not_allowed',
  'operation_not_allowed',
  'statement_not_allowed',
]);
const reachAttacks = attackCases.filter(([sql, code]) => REACH_CODES.has(code) && sql.length <= 500);

/**
 * What the granted role still reaches of those attacks without the guard, each for a reason no grant removes. A
 * statement of the corpus that the role can run and no reason here explains fails the test.
 */
const REACHABLE_WITHOUT_GUARD: [reason: string, pattern: RegExp][] = [
  [
    'catalogs PostgreSQL lets every role read (names and types of objects, not rows)',
    /\b(FROM|JOIN) (pg_user|pg_roles|pg_class|pg_proc|pg_namespace|pg_database)\b/,
  ],
  ['a dialect relation, schema-qualified', /^(SELECT .*FROM|UPDATE) public\.ledger_entries\b/],
  [
    'session and transaction statements every role may send (they reach no data; the DELETE is one the dialect allows)',
    /^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT s|END|ABORT|SET search_path TO public|SET LOCAL statement_timeout = 0|RESET ROLE|RESET ALL|SHOW search_path|LISTEN x|NOTIFY x|UNLISTEN \*|PREPARE p AS SELECT 1|EXECUTE p|DEALLOCATE p|DECLARE c CURSOR FOR SELECT 1|SELECT 1; COMMIT|SELECT 1; COMMIT; DELETE FROM ledger_entries)$/,
  ],
  [
    'statements over dialect relations and data the role holds: EXPLAIN (ANALYZE runs a DELETE the dialect allows), LOCK (UPDATE and DELETE permit it), COPY to the client, ANALYZE and GRANT (warnings: the role owns nothing)',
    /^(EXPLAIN SELECT 1|EXPLAIN ANALYZE DELETE FROM ledger_entries|LOCK TABLE ledger_entries|COPY \(SELECT 1\) TO STDOUT|ANALYZE ledger_entries|GRANT ALL ON ledger_entries TO PUBLIC)$/,
  ],
  ["an anonymous PL/pgSQL block: the language is PUBLIC's, and the block has the role's privileges", /^DO '/],
  [
    'what the runner calls (current_setting; pg_cancel_backend, on backends of the same role) and the defaults call (now)',
    /\b(current_setting|pg_cancel_backend|now)\(/,
  ],
  ["the dialect's own function, schema-qualified", /pg_catalog\.count\(\*\)/],
  [
    'SQL constructs PostgreSQL checks no EXECUTE privilege on (value functions, GREATEST, XML)',
    /^SELECT (CURRENT_DATE|CURRENT_TIME|CURRENT_TIMESTAMP|LOCALTIME|LOCALTIMESTAMP|CURRENT_USER|SESSION_USER|USER|CURRENT_ROLE|CURRENT_CATALOG|CURRENT_SCHEMA|GREATEST\(1, 2\)|XMLPARSE\(|\* FROM XMLTABLE\()/,
  ],
  [
    "a literal read by a type's input function (PostgreSQL checks no EXECUTE privilege on those)",
    /^SELECT (CAST\('x' AS (xid|name|xml|bytea|tsvector)\)|'x'::(xid|name|xml|bytea|tsvector))$/,
  ],
];

describe('grantStatements on PostgreSQL', () => {
  let database: FreshPostgres;
  let role: string;
  let owner: pg.Client;
  let asRole: pg.Client;
  let guard: Guard;

  beforeAll(async () => {
    database = await freshPostgres({ prefix: 'sql_guard_grants' });
    role = `guard_sql_${randomBytes(5).toString('hex')}`;
    await adminQuery(`CREATE ROLE ${role} LOGIN`);
    owner = new pg.Client({ connectionString: database.url });
    await owner.connect();
    await owner.query(expenseSchema + beyond);
    for (const statement of grantStatements(expenseDialect, role)) await owner.query(statement);
    const url = new URL(database.url);
    url.username = role;
    asRole = new pg.Client({ connectionString: url.toString() });
    await asRole.connect();
    guard = await createGuard();
  }, 120_000);
  afterAll(async () => {
    await asRole?.end().catch(() => {});
    await owner?.end().catch(() => {});
    await database?.drop();
    if (role) await adminQuery(`DROP ROLE IF EXISTS ${role}`);
  });

  it('lists the table and column grants, then the catalog-derived functions', () => {
    const statements = grantStatements(expenseDialect, 'agent');
    expect(statements).toContain(
      'GRANT SELECT ("base_currency", "quote_currency", "calendar_date", "rate", "source_rate_date") ON TABLE "fx_rates_daily" TO "agent"',
    );
    expect(statements).toContain('GRANT DELETE ON TABLE "ledger_entries" TO "agent"');
    expect(statements.some((s) => /GRANT (INSERT|UPDATE|DELETE).*"fx_rates_daily"/.test(s))).toBe(false);
    expect(statements.some((s) => s.includes('REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog'))).toBe(
      true,
    );
  });

  it('the role holds exactly the dialect: verifyDialect with the role finds no difference', async () => {
    expect(await verifyDialect(owner, expenseDialect, { role })).toEqual([]);
    expect(await verifyDialect(asRole, expenseDialect)).toEqual([]);
  });

  it('runs every legitimate statement of the corpora through the guard as the role', async () => {
    const failed: string[] = [];
    for (const [sql, mode] of legitimate) {
      await asRole.query('BEGIN');
      try {
        await guard.run(pgSession(asRole), sql, { mode });
      } catch (error) {
        failed.push(`${mode} ${sql.slice(0, 100)}: ${(error as Error).message}`);
      } finally {
        await asRole.query('ROLLBACK');
      }
    }
    expect(failed).toEqual([]);
  }, 300_000);

  it('reaches nothing beyond the dialect without the guard in front', async () => {
    const reached: string[] = [];
    for (const sql of attacks) {
      await asRole.query('BEGIN');
      try {
        await asRole.query(sql);
        reached.push(sql);
      } catch {
        // refused by PostgreSQL: the role may not
      } finally {
        await asRole.query('ROLLBACK');
      }
    }
    // The relations' defaults call now() (inserted_at), so the role must be able to: the only function reached.
    expect(reached).toEqual(['SELECT now()']);
  });

  it("the guard's attack corpus, sent without the guard, reaches nothing a grant could hold back", async () => {
    expect(reachAttacks.length).toBeGreaterThanOrEqual(300);
    const reached: string[] = [];
    const refused: string[] = [];
    for (const [sql] of reachAttacks) {
      await asRole.query('BEGIN');
      try {
        await asRole.query(sql);
        reached.push(sql);
      } catch {
        refused.push(sql);
      } finally {
        await asRole.query('ROLLBACK');
      }
    }
    const unexplained = reached.filter(
      (sql) => !REACHABLE_WITHOUT_GUARD.some(([, pattern]) => pattern.test(sql)),
    );
    expect(unexplained).toEqual([]);
    // Every reason explains something the role really reaches (none is left over to hide a future one).
    for (const [reason, pattern] of REACHABLE_WITHOUT_GUARD) {
      expect(
        reached.some((sql) => pattern.test(sql)),
        reason,
      ).toBe(true);
    }
    // What stays out of reach: data beyond the dialect, functions outside it, writes it does not allow.
    for (const sql of [
      'SELECT * FROM pg_authid',
      'SELECT * FROM information_schema.tables',
      "SELECT set_config('role', 'postgres', false)",
      'SELECT pg_sleep(100)',
      "SELECT pg_read_file('/etc/passwd')",
      "SELECT query_to_xml('select 1', true, true, '')",
      "SELECT lower('A')",
      'SELECT json_agg(1)',
      'CREATE TABLE x (a int)',
      'DROP TABLE ledger_entries',
      'SET ROLE postgres',
    ]) {
      expect(refused, sql).toContain(sql);
    }
  }, 120_000);

  it('a role granted before the lean path (no pg_get_expr) still reads, without the bounds of CHECK constraints', async () => {
    await owner.query(`REVOKE EXECUTE ON FUNCTION pg_catalog.pg_get_expr(pg_node_tree, oid) FROM ${role}`);
    const url = new URL(database.url);
    url.username = role;
    const older = new pg.Client({ connectionString: url.toString() });
    await older.connect();
    try {
      await expect(
        older.query('SELECT pg_catalog.pg_get_expr(conbin, conrelid) FROM pg_catalog.pg_constraint LIMIT 1'),
      ).rejects.toThrow(/permission denied for function pg_get_expr/);
      await older.query('BEGIN READ ONLY');
      const result = await guard.run(pgSession(older), 'SELECT * FROM ledger_entries LIMIT 20', {
        mode: 'query',
      });
      expect(result.statements[0]?.command).toBe('SELECT');
      // The refusal was kept to its savepoint: the transaction goes on.
      expect((await older.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await older.query('COMMIT');
    } finally {
      await older.end();
      await owner.query(`GRANT EXECUTE ON FUNCTION pg_catalog.pg_get_expr(pg_node_tree, oid) TO ${role}`);
    }
  });

  it('a column added later stays out of reach: * fails rather than returning it', async () => {
    await owner.query('ALTER TABLE fx_rates_daily ADD COLUMN internal_note text');
    try {
      await expect(asRole.query('SELECT * FROM fx_rates_daily')).rejects.toThrow(/permission denied/);
      const differences = await verifyDialect(asRole, expenseDialect);
      expect(differences.map(({ kind, column, operation }) => ({ kind, column, operation }))).toEqual([
        { kind: 'extra_column', column: 'internal_note', operation: undefined },
        { kind: 'operation_not_granted', column: undefined, operation: 'select' },
      ]);
    } finally {
      await owner.query('ALTER TABLE fx_rates_daily DROP COLUMN internal_note');
    }
  });
});
