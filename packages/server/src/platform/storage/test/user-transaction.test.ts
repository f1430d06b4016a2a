// User transactions: BEGIN, the context and the workspace lookup (in the SQL endpoints' plan, with the first
// statement, and a read-only transaction's COMMIT behind its last batch: src/features/sql/pipeline.ts).
import { type BatchInfo, createGuard } from '@expense/sql-guard';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGuarded } from '../../../features/sql/pipeline.js';
import type { Database, UserContext } from '../database.js';
import { InvalidContextError, WorkspaceNotResolvedError } from '../errors.js';
import { ENGINES, type EngineFixture } from './engines.js';
import { grantProbes, type Seed, seedTwoWorkspaces, sqlState } from './seed.js';

describe.each(ENGINES)('user transactions on %s', (engine, makeFixture) => {
  let fixture: EngineFixture;
  let db: Database;
  let seed: Seed;
  let keyOfA: string;

  const count = (ctx: UserContext) =>
    db.userTransaction(ctx, async (session, scope) => {
      const result = await session.query('SELECT count(*)::int AS n FROM ledger_entries');
      return { n: Number(result.rows[0]?.n), workspaceId: scope.workspaceId };
    });

  beforeAll(async () => {
    fixture = await makeFixture();
    db = await fixture.open();
    seed = await seedTwoWorkspaces(db);
    // The prepared-statement test looks at its own connection from inside the user transaction.
    await grantProbes(db, ['pg_backend_pid()', 'array_agg(anynonarray)', 'pg_prepared_statement()']);
    const { rows } = await db.query<{ connection_id: string }>(
      `INSERT INTO expense_internal.api_keys (user_id, label, key_hash, prefix, selected_workspace_id)
       VALUES ($1, 'k', $2, 'exp_live_x', $3) RETURNING connection_id`,
      [seed.memberOfA, 'a'.repeat(64), seed.workspaceA],
    );
    keyOfA = rows[0]!.connection_id;
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.dispose();
  });

  it('finds a requested workspace of a member, and the saved workspace of a key', async () => {
    const requested = { requested: seed.workspaceA.toUpperCase() };
    expect(await count({ userId: seed.memberOfA, workspaceId: requested, readOnly: true })).toEqual({
      n: 3,
      workspaceId: seed.workspaceA,
    });
    expect(
      await count({ userId: seed.memberOfA, workspaceId: { savedBy: keyOfA }, readOnly: false }),
    ).toEqual({ n: 3, workspaceId: seed.workspaceA });
  });

  it('stops before any user SQL when the lookup finds nothing', async () => {
    const misses: UserContext[] = [
      { userId: seed.memberOfA, workspaceId: { requested: seed.workspaceB }, readOnly: true },
      { userId: seed.outsider, workspaceId: { requested: seed.workspaceA }, readOnly: false },
      // Another user's key: its saved workspace is not theirs to use.
      { userId: seed.memberOfB, workspaceId: { savedBy: keyOfA }, readOnly: true },
    ];
    for (const ctx of misses) {
      // Run, this statement would fail with division_by_zero (22012) whatever the rows.
      const attempt = db.userTransaction(ctx, (session) => session.query('SELECT 1/0 AS x'));
      await expect(attempt).rejects.toBeInstanceOf(WorkspaceNotResolvedError);
    }
    // The connection is usable afterwards, outside any transaction.
    expect((await count(seed.a(true))).n).toBe(3);
  });

  it('keeps a looked-up transaction read only, and statement errors as they were', async () => {
    const ctx = { userId: seed.memberOfA, workspaceId: { requested: seed.workspaceA }, readOnly: true };
    const insert = "INSERT INTO account_metadata (account_id) VALUES ('lookup-read-only')";
    expect(await sqlState(db.userTransaction(ctx, (session) => session.query(insert)))).toBe('25006');
    const failed = await db
      .userTransaction(ctx, (session) => session.query('SELECT nope FROM ledger_entries'))
      .then(
        () => undefined,
        (error: { code?: string; position?: string }) => error,
      );
    // The position counts in the statement the session was given, not in the BEGIN and context before it.
    expect(failed).toMatchObject({ code: '42703', position: '8' });
  });

  it('commits a read-only transaction with the last batch and runs a later lookup in its own', async () => {
    const result = await db.userTransaction(seed.a(true), async (session) => {
      const batch = await session.queryBatch?.(
        'SELECT 1 AS a; SELECT count(*)::int AS n FROM ledger_entries',
        {
          last: true,
        },
      );
      const after = await session.query('SELECT count(*)::int AS n FROM ledger_entries');
      return { batch, after };
    });
    expect(result.batch?.map((r) => r.rows)).toEqual([[{ a: '1' }], [{ n: '3' }]]);
    expect(result.after.rows).toEqual([{ n: '3' }]);
    // Nothing was left open on the connection.
    expect((await count(seed.a(true))).n).toBe(3);
  });

  it.runIf(engine === 'postgres')(
    'keeps the guard output settings of its connections whatever the database defaults, checked in the context',
    async () => {
      const url = fixture.config.databaseUrl as string;
      const name = new URL(url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(
        `ALTER DATABASE ${name} SET DateStyle = 'SQL, DMY'; ALTER DATABASE ${name} SET IntervalStyle = iso_8601; ALTER DATABASE ${name} SET extra_float_digits = 3`,
      );
      const other = await fixture.open();
      try {
        const guard = await createGuard();
        const sent: string[] = [];
        // The SQL endpoints' plan (src/features/sql/pipeline.ts): BEGIN, context and the guard's batch in one round trip.
        const result = await runGuarded(
          other,
          guard,
          seed.a(true),
          {
            mode: 'query',
            sql: "SELECT DATE '2026-08-09' AS d, INTERVAL '1 day' AS i LIMIT 1",
            dryRun: false,
            observe: (session) => ({
              ...session,
              queryBatch: (text: string, info?: BatchInfo) => {
                sent.push(text);
                return session.queryBatch?.(text, info) ?? Promise.resolve([]);
              },
            }),
          },
          async (run) => run,
        );
        expect(result.statements[0]?.rows).toEqual([{ d: '2026-08-09', i: '1 day' }]);
        // The guard sets none of the output settings; their check travels once, in the context SELECT.
        expect(sent).toHaveLength(1);
        expect(sent[0]).not.toMatch(/SET LOCAL (DateStyle|IntervalStyle|extra_float_digits)|DECLARE/);
        expect(sent[0]?.split("current_setting('IntervalStyle')")).toHaveLength(2);
        expect(sent[0]).toMatch(/guard_settings, expense_internal\.open_user_context/);
      } finally {
        await other.close();
        await admin.query(`ALTER DATABASE ${name} RESET ALL`);
        await admin.end();
      }
    },
  );

  it('sets the context without leaving anything on the connection (no prepared statement)', async () => {
    // One connection, so that both requests meet the same session (PGlite has only one). A transaction-mode
    // pooler would hand the next transaction another server session: nothing may be expected to persist.
    const single = engine === 'postgres' ? await fixture.open({ maxConnections: 1 }) : db;
    const saved: UserContext = { userId: seed.memberOfA, workspaceId: { savedBy: keyOfA }, readOnly: true };
    const requested: UserContext = { ...saved, workspaceId: { requested: seed.workspaceA } };
    const look = (ctx: UserContext) =>
      single.userTransaction(ctx, async (session, scope) => {
        const { rows } = await session.query(
          'SELECT pg_catalog.pg_backend_pid() AS pid, (SELECT pg_catalog.count(*) FROM pg_catalog.pg_prepared_statements) AS prepared, current_user AS role',
        );
        const row = rows[0] as { pid: unknown; prepared: unknown; role: unknown };
        return { ...row, workspaceId: scope.workspaceId };
      });
    try {
      const first = await look(saved);
      const second = await look(requested);
      expect(second.pid).toBe(first.pid);
      for (const seen of [first, second]) {
        expect(seen).toMatchObject({ prepared: '0', role: 'expense_sql', workspaceId: seed.workspaceA });
      }
    } finally {
      if (single !== db) await single.close();
    }
  });

  it('rejects a lookup id that is not a UUID before touching the database', async () => {
    const bad = { userId: seed.memberOfA, workspaceId: { savedBy: "x'; RESET ROLE; --" }, readOnly: true };
    await expect(count(bad)).rejects.toBeInstanceOf(InvalidContextError);
  });
});
