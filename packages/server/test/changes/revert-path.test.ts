// A revert runs its inverse statements on the user-SQL path: in the context every SQL request's transaction opens
// (open_user_context, migration 0045), as the SQL role under row-level security. The older context function
// (begin_user_context) is left in the database for servers of the previous release, and nothing calls it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, insertEntries, type Live, startWithWorkspace, type TestUser } from '../sql/setup.js';

describe.each(ENGINES)('revert on the user-SQL path on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
  }, 180_000);
  afterAll(async () => live?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    live.request('POST', path, { key: user.apiKey, body, headers });
  const latestChangeId = async (): Promise<string> =>
    (await live.request('GET', '/v1/changes?limit=1', { key: user.apiKey })).body.data.changes[0].changeId;
  const accountRows = async (account: string): Promise<number> =>
    Number(
      (
        await post('/v1/sql/query', {
          sql: `SELECT count(*) AS n FROM ledger_entries WHERE account_id = '${account}'`,
        })
      ).body.data.statements[0].rows[0].n,
    );

  it('needs nothing of begin_user_context: with it gone, reverts of an INSERT and a DELETE restore the rows', async () => {
    await live.db.query('DROP FUNCTION expense_internal.begin_user_context(uuid, uuid, text, text)');

    expect((await post('/v1/sql/execute', { sql: insertEntries(3, 'rp-insert') })).status).toBe(200);
    const inserted = await latestChangeId();
    const dry = await post(`/v1/changes/${inserted}/revert`, { dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data.committed).toBe(false);
    expect(await accountRows('rp-insert')).toBe(3);
    const undone = await post(`/v1/changes/${inserted}/revert`, {});
    expect(undone.status).toBe(200);
    expect(await accountRows('rp-insert')).toBe(0);

    // Reverting a DELETE inserts the rows again: row-level security's check passes only in the workspace's context.
    await post('/v1/sql/execute', { sql: insertEntries(2, 'rp-delete') });
    await post('/v1/sql/execute', { sql: "DELETE FROM ledger_entries WHERE account_id = 'rp-delete'" });
    expect(await accountRows('rp-delete')).toBe(0);
    const restored = await post(`/v1/changes/${await latestChangeId()}/revert`, {});
    expect(restored.status).toBe(200);
    expect(restored.body.data.committed).toBe(true);
    expect(await accountRows('rp-delete')).toBe(2);
  });
});
