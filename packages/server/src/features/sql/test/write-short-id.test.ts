// Issue 41: a committed write answers its change's shortId beside its changeId, the same one GET /v1/changes shows
// (and the console's Activity, and `expense history`), so the id a person is told is one every change route takes.
// Dry runs and reads answer neither; a replay with the Idempotency-Key answers the same.
import { randomUUID } from 'node:crypto';
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, insertEntries, type Live, startWithWorkspace, type TestUser } from './setup.js';

describe.each(ENGINES)('the short id of a write on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    live.request('POST', path, { key: user.apiKey, body, headers });
  const listed = async (changeId: string) => {
    const res = await call(live, API_ROUTES.changes, { query: { limit: 100 }, key: user.apiKey });
    return (res.body.data.changes as { changeId: string; shortId: string }[]).find(
      (c) => c.changeId === changeId,
    );
  };

  it('answers the shortId GET /changes shows, from /sql/execute and /sql, and says it in the instructions', async () => {
    for (const [path, sql] of [
      [routePath(API_ROUTES.sqlExecute), insertEntries(2, 'short-exec')],
      [
        routePath(API_ROUTES.sqlScript),
        `${insertEntries(1, 'short-script')}; UPDATE ledger_entries SET note = 'x' WHERE account_id = 'short-script'`,
      ],
    ] as const) {
      const res = await post(path, { sql });
      expect(res.status, res.text).toBe(200);
      const { changeId, shortId } = res.body.data;
      expect(shortId).toMatch(/^[0-9a-f]{8}$/);
      expect(changeId.replace(/-/g, '').endsWith(shortId)).toBe(true);
      expect((await listed(changeId))?.shortId).toBe(shortId);
      expect(res.body.instructions.join(' ')).toContain(
        `recorded as change ${changeId} (short id ${shortId}`,
      );
      const byShort = await live.request('GET', routePath(API_ROUTES.change, { changeId: shortId }), {
        key: user.apiKey,
      });
      expect(byShort.body.data.change.changeId).toBe(changeId);
    }
  });

  it('answers none for a dry run or a read, and the same again on a replay', async () => {
    const dry = await post(routePath(API_ROUTES.sqlExecute), {
      sql: insertEntries(1, 'short-dry'),
      dryRun: true,
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.data).not.toHaveProperty('shortId');
    expect(dry.body.data).not.toHaveProperty('changeId');
    const read = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT count(*) AS n FROM ledger_entries',
    });
    expect(read.body.data).not.toHaveProperty('shortId');

    const key = { 'idempotency-key': randomUUID() };
    const first = await post(
      routePath(API_ROUTES.sqlExecute),
      { sql: insertEntries(1, 'short-replay') },
      key,
    );
    const again = await post(
      routePath(API_ROUTES.sqlExecute),
      { sql: insertEntries(1, 'short-replay') },
      key,
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.shortId).toBe(first.body.data.shortId);
    expect(again.body.data.changeId).toBe(first.body.data.changeId);
  });
});
