// The change history is bounded per workspace (bytes and changes): a write past the bound drops the
// workspace's oldest changes in its own transaction, GET and revert of a dropped change answer 404 not_found
// saying it was dropped, and the recorded total always equals what is stored. Real HTTP on both engines.
import { randomUUID } from 'node:crypto';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Json,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { purgeChanges } from '../store.js';

const MAX_BYTES = 40_000;
const MAX_CHANGES = 12;

describe.each(ENGINES)('change history bound on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let other: TestUser;
  let workspaceId: string;
  let otherWorkspace: string;

  beforeAll(async () => {
    live = await startLive(engine, {
      changeHistoryMaxBytes: MAX_BYTES,
      changeHistoryMaxChanges: MAX_CHANGES,
    });
    user = await createUser(live.db);
    workspaceId = await addWorkspace(live.db, user.userId);
    other = await createUser(live.db);
    otherWorkspace = await addWorkspace(live.db, other.userId, 'Other');
  });
  afterAll(async () => live?.close());

  const execute = (sql: string, apiKey = user.apiKey) =>
    call(live, API_ROUTES.sqlExecute, { key: apiKey, body: { sql } });
  const bigInsert = (i: number) =>
    `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'bound-${i}', ${i + 1}, 'EUR', 'spend', 'test', '${'x'.repeat(1990)}'), (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'bound-${i}', ${i + 2}, 'EUR', 'spend', 'test', '${'y'.repeat(1990)}')`;
  /** The history's size recomputed from what is stored, independently of the running total. */
  const stored = async (ws: string) => {
    const { rows } = await live.db.query<{ bytes: string; n: string; usage_bytes: string; usage_n: string }>(
      `SELECT coalesce(sum(octet_length(c.sql_text) + octet_length(c.statements::text)
               + coalesce((SELECT sum(octet_length(r.row_key::text) + coalesce(octet_length(r.before_image::text), 0)
                                      + coalesce(octet_length(r.after_image::text), 0))
                           FROM expense_internal.change_rows r WHERE r.change_id = c.change_id), 0)), 0) AS bytes,
              count(*) AS n,
              (SELECT bytes FROM expense_internal.change_usage WHERE workspace_id = $1) AS usage_bytes,
              (SELECT changes FROM expense_internal.change_usage WHERE workspace_id = $1) AS usage_n
       FROM expense_internal.changes c WHERE c.workspace_id = $1`,
      [ws],
    );
    const r = rows[0]!;
    return {
      bytes: Number(r.bytes),
      changes: Number(r.n),
      usageBytes: Number(r.usage_bytes),
      usageChanges: Number(r.usage_n),
    };
  };
  const orphanRows = async () =>
    Number(
      (
        await live.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM expense_internal.change_rows r
           WHERE NOT EXISTS (SELECT 1 FROM expense_internal.changes c WHERE c.change_id = r.change_id)`,
        )
      ).rows[0]!.n,
    );

  it('attack: 30 writes of long notes stay within the byte bound; the oldest are dropped, never a write', async () => {
    await execute(
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'keep-other', 1, 'EUR', 'spend', 'test')`,
      other.apiKey,
    );
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await execute(bigInsert(i * 10));
      expect(res.status).toBe(200);
      const list = await call(live, API_ROUTES.changes, { query: { limit: 1 }, key: user.apiKey });
      ids.push(list.body.data.changes[0].changeId);
      const now = await stored(workspaceId);
      expect(now.bytes).toBeLessThanOrEqual(MAX_BYTES);
      expect(now).toMatchObject({ usageBytes: now.bytes, usageChanges: now.changes });
    }
    // Every write was kept in the data.
    const { rows } = await live.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM public.ledger_entries WHERE workspace_id = $1 AND account_id LIKE 'bound-%'`,
      [workspaceId],
    );
    expect(Number(rows[0]!.n)).toBe(60);
    // The newest changes are listed and the first ones are gone, rows and all.
    const listed: Json[] = (await call(live, API_ROUTES.changes, { query: { limit: 100 }, key: user.apiKey }))
      .body.data.changes;
    expect(listed.length).toBeGreaterThan(1);
    expect(listed[0].changeId).toBe(ids.at(-1));
    expect(listed.map((c) => c.changeId)).not.toContain(ids[0]);
    expect(await orphanRows()).toBe(0);
    // Another workspace's history is untouched.
    expect((await stored(otherWorkspace)).changes).toBe(1);
  });

  it('answers GET and revert of a dropped change with 404 not_found saying it was dropped', async () => {
    const first: string = (
      await live.db.query<{ id: string }>(
        `SELECT c.change_id AS id FROM expense_internal.changes c WHERE workspace_id = $1 ORDER BY seq LIMIT 1`,
        [workspaceId],
      )
    ).rows[0]!.id;
    const droppedSql = bigInsert(9999);
    await execute(droppedSql);
    const newest: string = (await call(live, API_ROUTES.changes, { query: { limit: 1 }, key: user.apiKey }))
      .body.data.changes[0].changeId;
    for (let i = 0; i < 30; i++) await execute(bigInsert(20_000 + i * 10));
    for (const id of [first, newest]) {
      const get = await call(live, API_ROUTES.change, { params: { changeId: id }, key: user.apiKey });
      expect(get.status).toBe(404);
      expect(get.body.error).toMatchObject({
        code: 'not_found',
        details: { reason: 'dropped_by_history_bound', maxBytes: MAX_BYTES, maxChanges: MAX_CHANGES },
      });
      expect(get.body.error.hint).toMatch(/no longer stored/);
      const revert = await call(live, API_ROUTES.revertChange, {
        params: { changeId: id },
        key: user.apiKey,
        body: {},
      });
      expect(revert.status).toBe(404);
      expect(revert.body.error.details.reason).toBe('dropped_by_history_bound');
    }
    // The end of the list says that older changes were dropped.
    const all = await call(live, API_ROUTES.changes, { query: { limit: 100 }, key: user.apiKey });
    expect(all.body.instructions.join(' ')).toMatch(/Older changes are gone/);
    // An id that never existed is told apart.
    const unknown = await call(live, API_ROUTES.change, {
      params: { changeId: randomUUID() },
      key: user.apiKey,
    });
    expect(unknown.body.error).toMatchObject({ code: 'not_found', details: { reason: 'unknown_change' } });
    // The kept changes still revert.
    const kept: Json[] = (await call(live, API_ROUTES.changes, { query: { limit: 1 }, key: user.apiKey }))
      .body.data.changes;
    const dry = await call(live, API_ROUTES.revertChange, {
      params: { changeId: kept[0].changeId },
      key: user.apiKey,
      body: { dryRun: true },
    });
    expect(dry.status).toBe(200);
  });

  it('bounds the number of changes too', async () => {
    await execute(
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'small', 1, 'EUR', 'spend', 'test')`,
    );
    for (let i = 0; i < MAX_CHANGES + 5; i++) {
      expect(
        (await execute(`UPDATE ledger_entries SET amount = amount + 1 WHERE account_id = 'small'`)).status,
      ).toBe(200);
    }
    const now = await stored(workspaceId);
    expect(now.changes).toBe(MAX_CHANGES);
    expect(now).toMatchObject({ usageBytes: now.bytes, usageChanges: MAX_CHANGES });
    expect(await orphanRows()).toBe(0);
  });

  it('the 90-day purge keeps the totals equal to what is stored', async () => {
    await live.db.query(
      `UPDATE expense_internal.changes SET at = now() - interval '100 days'
       WHERE change_id IN (SELECT change_id FROM expense_internal.changes WHERE workspace_id = $1 ORDER BY seq LIMIT 5)`,
      [workspaceId],
    );
    expect(await purgeChanges(live.db, 1000)).toBe(5);
    const now = await stored(workspaceId);
    expect(now.changes).toBe(MAX_CHANGES - 5);
    expect(now).toMatchObject({ usageBytes: now.bytes, usageChanges: now.changes });
    expect(await orphanRows()).toBe(0);
  });
});
