// Recording a write locks the workspace's history total (migration 0020). The lock is taken before the
// statement writes a row, so two transactions of one workspace that write the same rows in opposite orders wait
// for each other instead of deadlocking (with the lock taken after the rows, PostgreSQL aborted one of them).
// Two real connections as the owner, interleaved statement by statement.

import { migratedPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../platform/storage/database.js';
import { openDatabase } from '../../../platform/storage/index.js';
import { addWorkspace, createUser } from '../../sql/test/setup.js';

describe('history lock order on PostgreSQL', () => {
  let target: { url: string; drop: () => Promise<void> };
  let db: Database;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    target = await migratedPostgres();
    db = await openDatabase({ databaseUrl: target.url });
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => {});
    await db?.close();
    await target?.drop();
  });

  it('two writers of the same rows in opposite orders both commit, each with its change', async () => {
    const user = await createUser(db);
    const ws = await addWorkspace(db, user.userId);
    const ids: string[] = [];
    for (const account of ['x', 'y']) {
      const { rows } = await db.query<{ entry_id: string }>(
        `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category)
         VALUES ($1, now(), $2, 1, 'EUR', 'spend', 'lock') RETURNING entry_id`,
        [ws, account],
      );
      ids.push(rows[0]!.entry_id);
    }
    const [x, y] = ids as [string, string];
    const open = async (label: string) => {
      const c = new pg.Client({ connectionString: target.url });
      clients.push(c);
      await c.connect();
      await c.query('BEGIN');
      await c.query(
        `SELECT set_config('expense.workspace_id', $1, true), set_config('expense.user_id', $2, true),
                expense_internal.begin_change('execute', NULL, $3)`,
        [ws, user.userId, label],
      );
      return c;
    };
    const update = (c: pg.Client, id: string, note: string) =>
      c.query('UPDATE public.ledger_entries SET note = $2 WHERE entry_id = $1', [id, note]);

    const one = await open('lock-order one');
    const two = await open('lock-order two');
    const twoPid = (await two.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await update(one, x, 'one');
    const twoFirst = update(two, y, 'two').then(
      () => 'ok',
      (e: { code?: string }) => e.code ?? 'error',
    );
    // Wait until the second transaction waits for a lock (polling, not timing).
    for (;;) {
      const { rows } = await db.query<{ waiting: boolean }>(
        `SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`,
        [twoPid],
      );
      if (rows[0]?.waiting) break;
      await new Promise((r) => setImmediate(r));
    }
    const oneSecond = await update(one, y, 'one').then(
      () => 'ok',
      (e: { code?: string }) => e.code ?? 'error',
    );
    expect(oneSecond).toBe('ok');
    await one.query('COMMIT');
    expect(await twoFirst).toBe('ok');
    expect(
      await update(two, x, 'two').then(
        () => 'ok',
        (e: { code?: string }) => e.code ?? 'error',
      ),
    ).toBe('ok');
    await two.query('COMMIT');

    const { rows } = await db.query<{ sql_text: string; n: string }>(
      `SELECT c.sql_text, (SELECT count(*) FROM expense_internal.change_rows r WHERE r.change_id = c.change_id) AS n
       FROM expense_internal.changes c WHERE c.workspace_id = $1 ORDER BY c.seq`,
      [ws],
    );
    expect(rows.map((r) => [r.sql_text, Number(r.n)])).toEqual([
      ['lock-order one', 2],
      ['lock-order two', 2],
    ]);
    const notes = await db.query<{ note: string }>(
      'SELECT note FROM public.ledger_entries WHERE workspace_id = $1 ORDER BY account_id',
      [ws],
    );
    expect(notes.rows.map((r) => r.note)).toEqual(['two', 'two']);
  });
});
