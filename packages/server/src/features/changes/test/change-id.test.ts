// Issue 23, item 4: every committed write answers data.changeId (the id of its entry in the change history), and
// revert takes an empty or missing body; in a workspace whose time zone is not UTC as well.
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

describe.each(ENGINES)('changeId of committed writes on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
    const zone = await sql(routePath(API_ROUTES.sqlExecute), {
      sql: "UPDATE workspace_settings SET timezone = 'Europe/Berlin'",
    });
    expect(zone.status).toBe(200);
  });
  afterAll(async () => live?.close());

  const sql = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    live.request('POST', path, { key: user.apiKey, body, headers });
  const newest = async (): Promise<string> => {
    const res = await call(live, API_ROUTES.changes, { query: { limit: 1 }, key: user.apiKey });
    return res.body.data.changes[0].changeId;
  };

  it('answers the changeId of /sql/execute and /sql commits, and none for reads and dry runs', async () => {
    const write = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(2) });
    expect(write.status).toBe(200);
    expect(write.body.data.changeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(write.body.data.changeId).toBe(await newest());
    expect(write.body.instructions.join(' ')).toContain(write.body.data.changeId);

    const script = await sql(routePath(API_ROUTES.sqlScript), {
      sql: `${insertEntries(1, 'cash')}; UPDATE ledger_entries SET note = 'x' WHERE account_id = 'cash'`,
    });
    expect(script.body.data.changeId).toBe(await newest());
    expect(script.body.data.changeId).not.toBe(write.body.data.changeId);

    const dry = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1), dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).not.toHaveProperty('changeId');
    const read = await sql(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT count(*) AS n FROM ledger_entries',
    });
    expect(read.body.data).not.toHaveProperty('changeId');

    const keyed = { 'idempotency-key': 'change-id-1' };
    const first = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'card') }, keyed);
    const replay = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'card') }, keyed);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.changeId).toBe(first.body.data.changeId);
  });

  it('reverts with a missing, an empty or an {} body, and answers the revert as a change', async () => {
    const bodies: { body?: Record<string, never>; rawBody?: string; headers?: Record<string, string> }[] = [
      {},
      { rawBody: '', headers: { 'content-type': 'application/json' } },
      { body: {} },
    ];
    for (const shape of bodies) {
      const write = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'revert-me') });
      const id = write.body.data.changeId;
      const reverted = await call(live, API_ROUTES.revertChange, {
        params: { changeId: id },
        key: user.apiKey,
        ...shape,
      });
      expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
      expect(reverted.body.data.committed).toBe(true);
      expect(reverted.body.data.changeId).toBe(await newest());
    }
    const left = await sql(routePath(API_ROUTES.sqlQuery), {
      sql: "SELECT count(*) AS n FROM ledger_entries WHERE account_id = 'revert-me'",
    });
    expect(left.body.data.statements[0].rows).toEqual([{ n: '0' }]);
  });
});
