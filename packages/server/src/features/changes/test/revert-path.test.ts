// A revert runs its inverse statements on the user-SQL path: in the context every SQL request's transaction opens
// (open_user_context, migration 0045), as the SQL role under row-level security. The older context function
// (begin_user_context) is left in the database for servers of the previous release, and nothing calls it. With an
// Idempotency-Key it goes through the SQL endpoints' one flow (platform/idempotency/write.ts): replays, refusals kept, keys
// reused and concurrent requests answer as on /v1/sql.
import { randomUUID } from 'node:crypto';
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  insertEntries,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';

describe.each(ENGINES)('revert on the user-SQL path on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    // Several requests with one key at once: the in-flight limits (test/fairness) are raised so that only
    // idempotency decides, as in test/sql/idempotency.test.ts.
    ({ live, user } = await startWithWorkspace(engine, { maxInflightPerKey: 100, maxInflightPerUser: 100 }));
  }, 180_000);
  afterAll(async () => live?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    live.request('POST', path, { key: user.apiKey, body, headers });
  const latestChangeId = async (): Promise<string> =>
    (await call(live, API_ROUTES.changes, { query: { limit: 1 }, key: user.apiKey })).body.data.changes[0]
      .changeId;
  const accountRows = async (account: string): Promise<number> =>
    Number(
      (
        await post(routePath(API_ROUTES.sqlQuery), {
          sql: `SELECT count(*) AS n FROM ledger_entries WHERE account_id = '${account}'`,
        })
      ).body.data.statements[0].rows[0].n,
    );

  it('needs nothing of begin_user_context: with it gone, reverts of an INSERT and a DELETE restore the rows', async () => {
    await live.db.query('DROP FUNCTION expense_internal.begin_user_context(uuid, uuid, text, text)');

    expect(
      (await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(3, 'rp-insert') })).status,
    ).toBe(200);
    const inserted = await latestChangeId();
    const dry = await post(routePath(API_ROUTES.revertChange, { changeId: inserted }), { dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data.committed).toBe(false);
    expect(await accountRows('rp-insert')).toBe(3);
    const undone = await post(routePath(API_ROUTES.revertChange, { changeId: inserted }), {});
    expect(undone.status).toBe(200);
    expect(await accountRows('rp-insert')).toBe(0);

    // Reverting a DELETE inserts the rows again: row-level security's check passes only in the workspace's context.
    await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(2, 'rp-delete') });
    await post(routePath(API_ROUTES.sqlExecute), {
      sql: "DELETE FROM ledger_entries WHERE account_id = 'rp-delete'",
    });
    expect(await accountRows('rp-delete')).toBe(0);
    const restored = await post(routePath(API_ROUTES.revertChange, { changeId: await latestChangeId() }), {});
    expect(restored.status).toBe(200);
    expect(restored.body.data.committed).toBe(true);
    expect(await accountRows('rp-delete')).toBe(2);
  });

  const REPLAYED = 'idempotent-replayed';
  /** What a client can tell of a response: status, replayed header, exact bytes. */
  const seen = (res: Awaited<ReturnType<typeof post>>) => ({
    status: res.status,
    replayed: res.headers.get(REPLAYED),
    text: res.text,
  });

  it('replays a revert with its Idempotency-Key exactly as /v1/sql/execute replays a write', async () => {
    const sqlKey = { 'idempotency-key': randomUUID() };
    const write = { sql: `${insertEntries(2, 'rp-idem')} RETURNING amount` };
    const sqlFirst = seen(await post(routePath(API_ROUTES.sqlExecute), write, sqlKey));
    const sqlAgain = seen(await post(routePath(API_ROUTES.sqlExecute), write, sqlKey));
    expect(sqlFirst.replayed).toBeNull();
    expect(sqlAgain).toEqual({ ...sqlFirst, replayed: 'true' });

    const changeId = await latestChangeId();
    const revertKey = { 'idempotency-key': randomUUID() };
    const first = seen(await post(routePath(API_ROUTES.revertChange, { changeId }), {}, revertKey));
    const revertId = await latestChangeId();
    const again = seen(await post(routePath(API_ROUTES.revertChange, { changeId }), {}, revertKey));
    expect(first).toMatchObject({ status: sqlFirst.status, replayed: sqlFirst.replayed });
    expect(again).toEqual({ ...first, replayed: sqlAgain.replayed });
    // Nothing ran again: no second revert in the history, the rows stay reverted.
    expect(await latestChangeId()).toBe(revertId);
    expect(await accountRows('rp-idem')).toBe(0);

    // A key of one request is refused for another, across the endpoints, as among the SQL endpoints.
    for (const res of [
      await post(routePath(API_ROUTES.sqlExecute), write, revertKey),
      await post(routePath(API_ROUTES.revertChange, { changeId: revertId }), {}, sqlKey),
      await post(routePath(API_ROUTES.revertChange, { changeId }), { dryRun: true }, revertKey),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('idempotency_key_reused');
    }
    expect(await latestChangeId()).toBe(revertId);
  });

  it('keeps a refused revert and a dry run for their key, as the SQL endpoints keep theirs', async () => {
    // A refusal of the database on /v1/sql/execute is kept and replayed...
    const sqlKey = { 'idempotency-key': randomUUID() };
    const bad = {
      sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'rp-bad', 1, 'euro', 'spend')",
    };
    const sqlFirst = seen(await post(routePath(API_ROUTES.sqlExecute), bad, sqlKey));
    expect(sqlFirst.status).toBe(400);
    expect(seen(await post(routePath(API_ROUTES.sqlExecute), bad, sqlKey))).toEqual({
      ...sqlFirst,
      replayed: 'true',
    });

    // ...and so is a revert's 409 change_conflict (the row was changed since), even once the conflict is gone.
    await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'rp-conflict') });
    const changeId = await latestChangeId();
    await post(routePath(API_ROUTES.sqlExecute), {
      sql: "UPDATE ledger_entries SET amount = 7 WHERE account_id = 'rp-conflict'",
    });
    const updateId = await latestChangeId();
    const key = { 'idempotency-key': randomUUID() };
    const refused = seen(await post(routePath(API_ROUTES.revertChange, { changeId }), {}, key));
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.text).error.code).toBe('change_conflict');
    expect((await post(routePath(API_ROUTES.revertChange, { changeId: updateId }), {})).status).toBe(200);
    expect(seen(await post(routePath(API_ROUTES.revertChange, { changeId }), {}, key))).toEqual({
      ...refused,
      replayed: 'true',
    });
    expect(await accountRows('rp-conflict')).toBe(1);

    // A dry run is kept too: the same bytes (its confirmToken included), nothing saved.
    const dryKey = { 'idempotency-key': randomUUID() };
    const dry = seen(await post(routePath(API_ROUTES.revertChange, { changeId }), { dryRun: true }, dryKey));
    expect(dry.status).toBe(200);
    expect(
      seen(await post(routePath(API_ROUTES.revertChange, { changeId }), { dryRun: true }, dryKey)),
    ).toEqual({
      ...dry,
      replayed: 'true',
    });
    expect(await accountRows('rp-conflict')).toBe(1);
    // With a key of its own, the revert the replays kept refused now runs (the conflict was gone all along).
    const applied = await post(
      routePath(API_ROUTES.revertChange, { changeId }),
      {},
      { 'idempotency-key': randomUUID() },
    );
    expect(applied.status).toBe(200);
    expect(await accountRows('rp-conflict')).toBe(0);
  });

  it('never runs two concurrent reverts with one key: one runs, the others replay its answer', async () => {
    await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(3, 'rp-race') });
    const changeId = await latestChangeId();
    const key = { 'idempotency-key': randomUUID() };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post(routePath(API_ROUTES.revertChange, { changeId }), {}, key)),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.headers.get(REPLAYED) === 'true')).toHaveLength(4);
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await accountRows('rp-race')).toBe(0);
    const history = (await call(live, API_ROUTES.changes, { query: { limit: 3 }, key: user.apiKey })).body
      .data.changes;
    expect(history.filter((c: { reverts?: string }) => c.reverts === changeId)).toHaveLength(1);
  });
});
