// The SQL role's functions (issue 11, finding 6): connected AS expense_sql, with no guard in front, the role
// cannot execute the functions an attacker would reach for, while every statement of the guard's legitimate
// corpus, and the defaults, checks, policies, view and triggers of the real relations, still run. The owner
// and the FX role keep every built-in function. Both engines.
import { createGuard, type Mode } from '@expense/sql-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The guard's legitimate corpus, over the real columns of the dialect.
import { cases } from '../../../../../sql-guard/test/check/corpus.js';
import { runGuarded } from '../../../features/sql/pipeline.js';
import type { Database, Queryable } from '../database.js';
import { ENGINES, type EngineFixture } from './engines.js';
import { type Seed, seedTwoWorkspaces } from './seed.js';

/** Functions an attacker would use to read, aggregate, exfiltrate, stall, or reach the server; each refused. */
const REFUSED: string[] = [
  'SELECT json_agg(x) FROM (VALUES (1)) AS v(x)',
  'SELECT jsonb_agg(x) FROM (VALUES (1)) AS v(x)',
  'SELECT array_agg(x) FROM (VALUES (1)) AS v(x)',
  "SELECT string_agg(x, ',') FROM (VALUES ('a')) AS v(x)",
  "SELECT xmlagg(x) FROM (VALUES ('<a/>'::xml)) AS v(x)",
  'SELECT json_object_agg(x, x) FROM (VALUES (1)) AS v(x)',
  'SELECT row_to_json(v) FROM (VALUES (1)) AS v(x)',
  'SELECT to_json(1)',
  'SELECT to_jsonb(1)',
  "SELECT jsonb_build_object('a', 1)",
  'SELECT json_build_array(1)',
  "SELECT query_to_xml('SELECT 1', true, true, '')",
  "SELECT pg_read_file('postgresql.conf')",
  "SELECT pg_read_binary_file('postgresql.conf')",
  "SELECT pg_ls_dir('.')",
  "SELECT pg_stat_file('.')",
  "SELECT lo_import('/etc/passwd')",
  "SELECT lo_export(1, '/tmp/expense-lo')",
  'SELECT lo_get(1)',
  "SELECT set_config('expense.workspace_id', '00000000-0000-4000-8000-000000000000', true)",
  "SELECT current_setting('data_directory')",
  "SELECT current_setting('expense.user_id', true)",
  'SELECT pg_sleep(0)',
  "SELECT pg_sleep_for('0 seconds')",
  'SELECT pg_advisory_lock(1)',
  'SELECT pg_try_advisory_lock(1)',
  'SELECT pg_advisory_xact_lock(1)',
  'SELECT pg_terminate_backend(0)',
  'SELECT pg_cancel_backend(0)',
  'SELECT pg_reload_conf()',
  "SELECT pg_notify('expense_key_revoked', 'x')",
  'SELECT txid_current()',
  'SELECT pg_current_xact_id()',
  'SELECT generate_series(1, 2)',
  "SELECT repeat('a', 2)",
  "SELECT lpad('a', 2)",
  "SELECT pg_get_viewdef('accounts'::regclass)",
  "SELECT has_table_privilege('ledger_entries', 'SELECT')",
  'SELECT version()',
  'SELECT inet_server_addr()',
  'SELECT inet_client_addr()',
  'SELECT pg_backend_pid()',
  'SELECT pg_postmaster_start_time()',
  'SELECT current_database()',
  'SELECT current_schemas(true)',
  'SELECT random()',
  "SELECT md5('a')",
  "SELECT encode('a'::bytea, 'hex')",
  "SELECT convert_from('a'::bytea, 'UTF8')",
  "SELECT lower('A')",
  "SELECT substr('abc', 1, 1)",
  "SELECT regexp_replace('a', 'a', 'b')",
  "SELECT concat('a', 'b')",
  "SELECT array_to_string(ARRAY['a'], ',')",
  "SELECT pg_relation_size('ledger_entries')",
  "SELECT pg_database_size('postgres')",
  'SELECT pg_stat_reset()',
  'SELECT clock_timestamp()',
];

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
}

/** Runs `sql` under a savepoint so a failure does not end the transaction. */
async function attempt(tx: Queryable, sql: string): Promise<Outcome> {
  await tx.query('SAVEPOINT attempt');
  try {
    await tx.query(sql);
    await tx.query('RELEASE SAVEPOINT attempt');
    return { ok: true };
  } catch (error) {
    await tx.query('ROLLBACK TO SAVEPOINT attempt');
    const e = error as { code?: string; message?: string };
    return { ok: false, code: e.code, message: e.message };
  }
}

/** A transaction as the SQL role with a request's context (what the server sets), and no guard. */
async function asSqlRole<T>(
  db: Database,
  seed: Seed,
  fn: (tx: Queryable) => Promise<T>,
  searchPath = 'public, pg_temp',
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(
      `SELECT set_config('expense.user_id', $1, true), set_config('expense.workspace_id', $2, true),
              set_config('search_path', $3, true)`,
      [seed.memberOfA, seed.workspaceA, searchPath],
    );
    await tx.query('SET LOCAL ROLE expense_sql');
    const role = await tx.query<{ r: string }>('SELECT current_user AS r');
    expect(role.rows[0]!.r).toBe('expense_sql');
    return fn(tx);
  });
}

describe.each(ENGINES)('the SQL role’s functions on %s', (_name, makeFixture) => {
  let fixture: EngineFixture;
  let db: Database;
  let seed: Seed;

  beforeAll(async () => {
    fixture = await makeFixture();
    db = await fixture.open();
    seed = await seedTwoWorkspaces(db);
  });

  afterAll(async () => {
    await db?.close();
    await fixture?.dispose();
  });

  it('refuses at least 40 dangerous functions (permission denied), and lets none of them run', async () => {
    const outcomes = await asSqlRole(db, seed, async (tx) => {
      const out: [string, Outcome][] = [];
      for (const sql of REFUSED) out.push([sql, await attempt(tx, sql)]);
      return out;
    });
    const ran = outcomes.filter(([, o]) => o.ok).map(([sql]) => sql);
    expect(ran).toEqual([]);
    // 42501 insufficient_privilege; 42883 only where this engine lacks the function altogether.
    const other = outcomes.filter(([, o]) => !o.ok && o.code !== '42501' && o.code !== '42883');
    expect(other.map(([sql, o]) => `${sql}: ${o.code} ${o.message}`)).toEqual([]);
    const denied = outcomes.filter(([, o]) => o.code === '42501');
    expect(denied.length).toBeGreaterThanOrEqual(40);
    for (const [, o] of denied) expect(o.message).toMatch(/permission denied for (function|aggregate)/);
  });

  /** A refusal for want of a privilege or a function: what this migration could cause. Data errors are not. */
  const privilegeProblem = (code: string | undefined, message: string | undefined) =>
    code === '42501' || code === '42883' || /permission denied/.test(message ?? '');

  it("runs every statement of the guard's legitimate corpus as the SQL role", async () => {
    const guard = await createGuard();
    expect(cases.length).toBeGreaterThanOrEqual(90);
    const failures = await asSqlRole(db, seed, async (tx) => {
      const failed: string[] = [];
      for (const [sql, mode] of cases) {
        const checked = guard.check(sql, { mode: mode as Mode });
        if (!checked.ok) throw new Error(`the guard no longer accepts: ${sql}`);
        for (const statement of checked.statements) {
          const outcome = await attempt(tx, statement.sql);
          if (!outcome.ok && privilegeProblem(outcome.code, outcome.message))
            failed.push(`${statement.sql.slice(0, 120)}: ${outcome.code} ${outcome.message}`);
        }
      }
      return failed;
    });
    expect(failures).toEqual([]);
  });

  it("runs the corpus through the guard's own run too (its wrapper counts rows, measures bytes, reads types)", async () => {
    const guard = await createGuard();
    const failed: string[] = [];
    for (const [sql, mode] of cases) {
      try {
        // The SQL endpoints' own plan (src/features/sql/pipeline.ts): the guard's settings check in the context, as the owner.
        await runGuarded(
          db,
          guard,
          { userId: seed.memberOfA, workspaceId: seed.workspaceA, readOnly: mode === 'query' },
          { mode: mode as Mode, sql, dryRun: true },
          async (result) => result,
        );
      } catch (error) {
        const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
        if (privilegeProblem(e.code, e.message) || privilegeProblem(e.cause?.code, e.cause?.message))
          failed.push(`${sql.slice(0, 100)}: ${e.code} ${e.message}`);
      }
    }
    expect(failed).toEqual([]);
  });

  it('runs the real relations’ defaults, checks, policies, view and triggers as the SQL role', async () => {
    const failures = await asSqlRole(db, seed, async (tx) => {
      const statements = [
        "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ('2026-08-01', 'bank', -5, 'EUR', 'spend', 'food')",
        "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, event_id) VALUES (TIMESTAMPTZ '2026-08-02 10:00:00+02', 'bank', -100, 'EUR', 'transfer', 'e1'), ('2026-08-02', 'savings', 100, 'EUR', 'transfer', 'e1')",
        "UPDATE ledger_entries SET note = 'corrected', ts = ts + INTERVAL '1 day' WHERE category = 'food' AND amount BETWEEN -10 AND 0",
        "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-08-01', 'spend', 'food', 'EUR', 400)",
        "INSERT INTO account_metadata (account_id, display_name, account_type, liquidity) VALUES ('bank', 'Bank', 'checking', 'high')",
        "UPDATE workspace_settings SET timezone = 'Europe/Berlin', reporting_currency = 'EUR', first_day_of_week = 1",
        'SELECT account_id, currency, balance, entry_count, first_ts, last_ts, display_name FROM accounts ORDER BY account_id',
        "SELECT l.amount * r.rate AS usd FROM ledger_entries l LEFT JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = 'USD' AND r.calendar_date = l.ts::date",
        "SELECT count(*) FROM fx_rates_raw WHERE rate_date >= DATE '2026-01-01'",
        "SELECT count(*) FROM ledger_entries WHERE amount IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) OR category IN ('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j')",
        "DELETE FROM ledger_entries WHERE event_id = 'e1'",
        'DELETE FROM account_metadata',
      ];
      const failed: string[] = [];
      for (const sql of statements) {
        const outcome = await attempt(tx, sql);
        if (!outcome.ok) failed.push(`${sql}: ${outcome.code} ${outcome.message}`);
      }
      // A bad time zone is refused by the trigger (a check violation), not by a missing privilege.
      const zone = await attempt(tx, "UPDATE workspace_settings SET timezone = 'Mars/Olympus'");
      expect(zone.code).toBe('23514');
      // Row-level security still scopes rows through the helper function.
      const visible = await tx.query<{ n: string }>(
        'SELECT count(DISTINCT workspace_id)::text AS n FROM ledger_entries',
      );
      expect(visible.rows[0]!.n).toBe('1');
      return failed;
    });
    expect(failures).toEqual([]);
  });

  it('leaves the owner and the FX role every built-in function', async () => {
    const owner = await db.query<{ n: number; lock: string }>(
      `SELECT (SELECT count(*)::int FROM (SELECT json_agg(x) FROM generate_series(1, 3) AS x) AS s) AS n,
              pg_try_advisory_xact_lock(42)::text AS lock`,
    );
    expect(owner.rows[0]).toEqual({ n: 1, lock: 'true' });
    const fx = await db.transaction(async (tx) => {
      await tx.query('SET LOCAL ROLE expense_fx');
      return tx.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM generate_series(DATE '2026-01-01', DATE '2026-01-31', INTERVAL '1 day')",
      );
    });
    expect(fx.rows[0]!.n).toBe('31');
    // New functions of the owner are not executable by PUBLIC (default privileges).
    const fresh = await db.transaction(async (tx) => {
      await tx.query('CREATE FUNCTION public.expense_probe() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$');
      const r = await tx.query<{ granted: boolean }>(
        "SELECT has_function_privilege('expense_sql', 'public.expense_probe()', 'EXECUTE') AS granted",
      );
      await tx.query('DROP FUNCTION public.expense_probe()');
      return r.rows[0]!.granted;
    });
    expect(fresh).toBe(false);
  });
});
