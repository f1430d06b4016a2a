// Workspace isolation proved at the database level, below the guard: raw SQL runs as the SQL role inside
// userTransaction, with nothing but PostgreSQL's grants and row-level security in the way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, UserContext } from '../database.js';
import {
  DatabaseUnavailableError,
  InvalidContextError,
  MutationOutcomeUnknownError,
  StorageError,
} from '../errors.js';
import { ENGINES, type EngineFixture } from './engines.js';
import { grantProbes, type Seed, seedTwoWorkspaces, sqlState } from './seed.js';

describe.each(ENGINES)('isolation on %s', (engine, makeFixture) => {
  let fixture: EngineFixture;
  let db: Database;
  let seed: Seed;

  const run = (ctx: UserContext, sql: string, options?: { rollback?: boolean }) =>
    db.userTransaction(ctx, (session) => session.query(sql), options);
  const ownerCount = async (sql: string, params: unknown[]) =>
    Number((await db.query<{ n: string }>(sql, params)).rows[0]?.n);

  beforeAll(async () => {
    fixture = await makeFixture();
    db = await fixture.open();
    seed = await seedTwoWorkspaces(db);
    await grantProbes(db, ['pg_backend_pid()']); // the lost-connection test finds its backend
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.dispose();
  });

  it('reads only the rows of the workspace in context, in every workspace relation', async () => {
    for (const [relation, expected] of [
      ['ledger_entries', 3],
      ['budget_lines', 1],
      ['workspace_settings', 1],
      ['account_metadata', 2],
    ] as const) {
      const all = await run(seed.a(true), `SELECT count(*) AS n FROM ${relation}`);
      expect(all.rows[0]?.n, relation).toBe(String(expected));
      const foreign = await run(
        seed.a(true),
        `SELECT count(*) AS n FROM ${relation} WHERE workspace_id = '${seed.workspaceB}'`,
      );
      expect(foreign.rows[0]?.n, relation).toBe('0');
    }
  });

  it('updates and deletes none of the other workspace rows', async () => {
    const updated = await run(seed.a(), "UPDATE ledger_entries SET note = 'touched'", { rollback: true });
    expect(updated.rowCount).toBe(3);
    const aimed = await run(
      seed.a(),
      `UPDATE ledger_entries SET note = 'x' WHERE workspace_id = '${seed.workspaceB}'`,
    );
    expect(aimed.rowCount).toBe(0);
    for (const relation of ['ledger_entries', 'budget_lines', 'workspace_settings', 'account_metadata']) {
      const deleted = await run(
        seed.a(),
        `DELETE FROM ${relation} WHERE workspace_id = '${seed.workspaceB}'`,
      );
      expect(deleted.rowCount, relation).toBe(0);
    }
    expect(
      await ownerCount('SELECT count(*) AS n FROM ledger_entries WHERE workspace_id = $1 AND note IS NULL', [
        seed.workspaceB,
      ]),
    ).toBe(2);
    expect(
      await ownerCount('SELECT count(*) AS n FROM account_metadata WHERE workspace_id = $1', [
        seed.workspaceB,
      ]),
    ).toBe(2);
  });

  it('refuses rows that name another workspace, on INSERT and on UPDATE', async () => {
    const insert = `INSERT INTO ledger_entries (workspace_id, ts, account_id, amount, currency, kind)
                    VALUES ('${seed.workspaceB}', '2026-03-05', 'x', 1, 'USD', 'income')`;
    expect(await sqlState(run(seed.a(), insert))).toBe('42501');
    expect(
      await sqlState(
        run(seed.a(), `INSERT INTO workspace_settings (workspace_id) VALUES ('${seed.workspaceB}')`),
      ),
    ).toBe('42501');
    expect(await sqlState(run(seed.a(), `UPDATE budget_lines SET workspace_id = '${seed.workspaceB}'`))).toBe(
      '42501',
    );
    expect(
      await ownerCount('SELECT count(*) AS n FROM budget_lines WHERE workspace_id = $1', [seed.workspaceB]),
    ).toBe(1);
  });

  it('shows nothing to a user who is not a member of the workspace in context', async () => {
    for (const userId of [seed.outsider, seed.memberOfB]) {
      const ctx = { userId, workspaceId: seed.workspaceA, readOnly: false };
      for (const relation of [
        'ledger_entries',
        'budget_lines',
        'workspace_settings',
        'account_metadata',
        'accounts',
      ]) {
        const result = await run(ctx, `SELECT count(*) AS n FROM ${relation}`);
        expect(result.rows[0]?.n, relation).toBe('0');
      }
      expect((await run(ctx, "UPDATE ledger_entries SET note = 'x'")).rowCount).toBe(0);
      const insert =
        "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES ('2026-03-05', 'x', 1, 'USD', 'income')";
      expect(await sqlState(run(ctx, insert))).toBe('42501');
    }
  });

  it('the accounts view shows the caller workspace only', async () => {
    const result = await run(
      seed.a(true),
      'SELECT account_id, currency, balance, entry_count FROM accounts ORDER BY account_id',
    );
    expect(result.rows).toEqual([
      { account_id: 'a-checking', currency: 'USD', balance: '-30.75', entry_count: '3' },
      { account_id: 'a-savings', currency: null, balance: '0', entry_count: '0' },
    ]);
  });

  it('keeps contexts apart when transactions run concurrently', async () => {
    const ctxB = { userId: seed.memberOfB, workspaceId: seed.workspaceB, readOnly: true };
    const counts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.userTransaction(i % 2 === 0 ? seed.a(true) : ctxB, async (session) => {
          const first = await session.query('SELECT count(*) AS n FROM ledger_entries');
          await new Promise((resolve) => setTimeout(resolve, 5));
          const second = await session.query('SELECT count(*) AS n FROM ledger_entries');
          return [first.rows[0]?.n, second.rows[0]?.n];
        }),
      ),
    );
    expect(counts).toEqual(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? ['3', '3'] : ['2', '2'])));
  });

  it('cannot reach internal tables, privileged catalogs or the context setters', async () => {
    for (const sql of [
      'SELECT count(*) FROM expense_internal.users',
      'SELECT count(*) FROM expense_internal.api_keys',
      'SELECT count(*) FROM expense_internal.workspace_members',
      'SELECT expense_internal.current_workspace_id()',
      `SELECT pg_catalog.set_config('expense.workspace_id', '${seed.workspaceB}', true)`,
      "SELECT pg_catalog.set_config('role', 'postgres', true)",
      'SELECT count(*) FROM pg_catalog.pg_authid',
      'CREATE TABLE public.smuggled (a int)',
      'CREATE TEMP TABLE smuggled (a int)',
      'CREATE SCHEMA smuggled',
    ]) {
      expect(await sqlState(run(seed.a(), sql)), sql).toBe('42501');
    }
  });

  it('fills workspace_id and the timestamps for the caller, and keeps updated_at current', async () => {
    const inserted = await run(
      seed.a(),
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, event_id) VALUES ('2026-03-09T08:00:00Z', 'a-checking', '100', 'USD', 'income', 'evt-1') RETURNING workspace_id, entry_id, inserted_at, updated_at",
      { rollback: true },
    );
    expect(inserted.rows[0]?.workspace_id).toBe(seed.workspaceA);
    expect(inserted.rows[0]?.entry_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(inserted.rows[0]?.inserted_at).toBeTruthy();
    const touched = await db.userTransaction(seed.a(), async (session) => {
      await session.query(
        "UPDATE account_metadata SET updated_at = '2000-01-01T00:00:00Z' WHERE account_id = 'a-savings'",
      );
      return session.query(
        "SELECT updated_at > '2001-01-01' AS fresh FROM account_metadata WHERE account_id = 'a-savings'",
      );
    });
    expect(String(touched.rows[0]?.fresh)).toMatch(/^(t|true)$/);
  });

  it('enforces the data model constraints', async () => {
    const entry = (values: string) =>
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, external_id) VALUES ${values}`;
    const cases: [string, string][] = [
      [entry("('2026-03-01', 'a', -1, 'usd', 'spend', NULL, NULL)"), '23514'],
      [entry("('2026-03-01', 'a', -1, 'USD', 'refund', NULL, NULL)"), '23514'],
      [entry("('2026-03-01', 'a', -1, 'USD', 'transfer', 'food', NULL)"), '23514'],
      [entry("('2026-03-01', 'a', -1, 'USD', 'spend', NULL, 'a-0')"), '23505'],
      [entry("(NULL, 'a', -1, 'USD', 'spend', NULL, NULL)"), '23502'],
      [
        "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-03-02', 'spend', 'rent', 'USD', 1)",
        '23514',
      ],
      [
        "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-04-01', 'spend', 'rent', 'USD', 0)",
        '23514',
      ],
      [
        "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-03-01', 'spend', 'food', 'USD', 5)",
        '23505',
      ],
      ["UPDATE workspace_settings SET timezone = 'Mars/Olympus_Mons'", '23514'],
      ['UPDATE workspace_settings SET first_day_of_week = 8', '23514'],
      ["UPDATE account_metadata SET account_type = 'piggy_bank'", '23514'],
    ];
    for (const [sql, code] of cases) expect(await sqlState(run(seed.a(), sql)), sql).toBe(code);
    const ok = await run(
      seed.a(),
      "UPDATE workspace_settings SET timezone = 'Europe/Berlin', first_day_of_week = 7",
      {
        rollback: true,
      },
    );
    expect(ok.rowCount).toBe(1);
  });

  it('read-only transactions refuse writes, dry runs roll back, failed transactions never report a commit', async () => {
    const insert = "INSERT INTO account_metadata (account_id) VALUES ('dry-run')";
    expect(await sqlState(run(seed.a(true), insert))).toBe('25006');
    expect((await run(seed.a(), insert, { rollback: true })).rowCount).toBe(1);
    expect(
      await ownerCount("SELECT count(*) AS n FROM account_metadata WHERE account_id = 'dry-run'", []),
    ).toBe(0);
    const swallowed = db.userTransaction(seed.a(), async (session) => {
      await session.query(insert);
      await session
        .query("INSERT INTO account_metadata (account_id, liquidity) VALUES ('bad', 'none')")
        .catch(() => {});
    });
    await expect(swallowed).rejects.toMatchObject({ code: 'transaction_rolled_back' });
    expect(
      await ownerCount("SELECT count(*) AS n FROM account_metadata WHERE account_id = 'dry-run'", []),
    ).toBe(0);
  });

  it('rejects a context that is not a pair of UUIDs before touching the database', async () => {
    const bad = { userId: seed.memberOfA, workspaceId: "x'; RESET ROLE; --", readOnly: true };
    await expect(run(bad, 'SELECT 1')).rejects.toBeInstanceOf(InvalidContextError);
  });

  it('lets the SQL role read the FX tables but only the FX role write them', async () => {
    await db.transaction(async (tx) => {
      await tx.query('SET LOCAL ROLE expense_fx');
      await tx.query(
        "INSERT INTO fx_rates_raw (base_currency, quote_currency, rate_date, rate, source) VALUES ('EUR', 'USD', '2026-03-02', 1.08, 'ecb')",
      );
      await tx.query(
        "INSERT INTO fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date) VALUES ('EUR', 'USD', '2026-03-02', 1.08, '2026-03-02')",
      );
      const denied = await tx.query('SAVEPOINT s; SELECT count(*) FROM ledger_entries').then(
        () => 'allowed',
        (error: { code?: string }) => error.code,
      );
      expect(denied).toBe('42501');
      await tx.query('ROLLBACK TO SAVEPOINT s');
    });
    const read = await run(
      seed.a(true),
      "SELECT rate FROM fx_rates_daily WHERE calendar_date = DATE '2026-03-02'",
    );
    expect(read.rows).toEqual([{ rate: '1.08' }]);
    for (const relation of ['fx_rates_raw', 'fx_rates_daily']) {
      expect(await sqlState(run(seed.a(), `DELETE FROM ${relation}`)), relation).toBe('42501');
      expect(await sqlState(run(seed.a(), `UPDATE ${relation} SET rate = 2`)), relation).toBe('42501');
    }
    // A view over a FULL JOIN is not updatable anyway (55000); the grant is SELECT only either way.
    expect(await sqlState(run(seed.a(), 'DELETE FROM accounts'))).toMatch(/^(42501|55000)$/);
    const grants = await db.query<{ w: boolean }>(
      "SELECT has_table_privilege('expense_sql', 'public.accounts', 'INSERT, UPDATE, DELETE') AS w",
    );
    expect(grants.rows[0]?.w).toBe(false);
  });

  it.runIf(engine === 'postgres')(
    'maps a lost connection to database_unavailable, and a lost COMMIT to mutation_outcome_unknown',
    async () => {
      const killOwnBackend = async (session: {
        query(text: string): Promise<{ rows: Record<string, unknown>[] }>;
      }) => {
        const pid = (await session.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
        await db.query('SELECT pg_terminate_backend($1::int)', [pid]);
        await new Promise((resolve) => setTimeout(resolve, 50));
      };
      const midway = db.userTransaction(seed.a(), async (session) => {
        await killOwnBackend(session);
        return session.query('SELECT 1');
      });
      await expect(midway).rejects.toBeInstanceOf(DatabaseUnavailableError);
      const atCommit = db.userTransaction(seed.a(), async (session) => {
        await session.query("INSERT INTO account_metadata (account_id) VALUES ('lost-commit')");
        await killOwnBackend(session);
      });
      await expect(atCommit).rejects.toBeInstanceOf(MutationOutcomeUnknownError);
      const readOnly = db.userTransaction(seed.a(true), killOwnBackend);
      await expect(readOnly).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(db.ping()).resolves.toBeUndefined();
    },
  );

  it('typed errors carry stable codes', () => {
    expect(new DatabaseUnavailableError()).toBeInstanceOf(StorageError);
    expect(new DatabaseUnavailableError().code).toBe('database_unavailable');
    expect(new MutationOutcomeUnknownError().code).toBe('mutation_outcome_unknown');
  });
});
