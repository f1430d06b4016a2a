// The 90-day purge of the change history runs on the server's internal pool: it must not wait for a user's write,
// which holds its workspace's usage row from its first write statement until COMMIT (migration 0020). The purge
// skips such a workspace (migration 0047) and purges the others; the skipped one's old changes go in a later round.
// PostgreSQL, direct and through PgBouncer (the embedded engine has one session: nothing runs beside the purge).
import { call, pooledEngines } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { purgeChanges } from '../store.js';

const within = <T>(work: Promise<T>, ms = 60_000): Promise<T | 'no answer'> =>
  Promise.race([
    work,
    new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), ms).unref()),
  ]);

describe.each([
  ...ENGINES.filter((engine) => engine.kind !== 'pglite'),
  ...pooledEngines('the purge lock test through PgBouncer'),
])('the history purge beside a user’s open write on $name', (engine) => {
  let live: Live;
  const users: { user: TestUser; workspaceId: string }[] = [];

  beforeAll(async () => {
    live = await startLive(engine);
    for (const name of ['Held', 'Free']) {
      const user = await createUser(live.db);
      users.push({ user, workspaceId: await addWorkspace(live.db, user.userId, name) });
    }
  });
  afterAll(async () => live?.close());

  const oldChanges = async (workspaceId: string) =>
    (
      await live.db.query<{ n: number; usage: number }>(
        `SELECT count(*)::int AS n,
                (SELECT changes FROM expense_internal.change_usage WHERE workspace_id = $1) AS usage
         FROM expense_internal.changes WHERE workspace_id = $1 AND at < now() - interval '90 days'`,
        [workspaceId],
      )
    ).rows[0]!;

  it('skips the workspace whose usage row a write holds and purges the others, without waiting', async () => {
    for (const { user } of users) {
      for (let i = 0; i < 3; i++) {
        const res = await call(live, API_ROUTES.sqlExecute, {
          key: user.apiKey,
          body: {
            sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'purge', ${i + 1}, 'EUR', 'spend', 'test')`,
          },
        });
        expect(res.status).toBe(200);
      }
    }
    await live.db.query(`UPDATE expense_internal.changes SET at = now() - interval '100 days'`);
    const [held, free] = users as [(typeof users)[0], (typeof users)[0]];
    // What a recorded write's statement trigger takes first and keeps until its COMMIT.
    const holder = new pg.Client({ connectionString: live.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT expense_internal.lock_change_usage($1)', [held.workspaceId]);
      const purged = await within(purgeChanges(live.db, 1000));
      expect(purged).toBe(3);
      expect(await oldChanges(held.workspaceId)).toEqual({ n: 3, usage: 3 });
      expect(await oldChanges(free.workspaceId)).toEqual({ n: 0, usage: 0 });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    // Once the write ended, a later round purges it.
    expect(await purgeChanges(live.db, 1000)).toBe(3);
    expect(await oldChanges(held.workspaceId)).toEqual({ n: 0, usage: 0 });
  });
});
