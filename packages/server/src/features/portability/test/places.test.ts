// An export or a restore takes one of the caller's in-flight places before it reads anything (issue 40, reviewed
// under issue 35's attack model): a key cannot run restores of hundreds of MiB, or exports, without bound.
import { request as httpRequest } from 'node:http';
import { PGLITE } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, type Live, startLive, type TestUser } from '../../sql/test/setup.js';

describe('export and restore hold an in-flight place', () => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;
  beforeAll(async () => {
    live = await startLive(PGLITE, { maxInflightPerKey: 1 });
    user = await createUser(live.db);
    workspaceId = await addWorkspace(live.db, user.userId);
  });
  afterAll(async () => live?.close());

  it('a restore whose body is still arriving holds the key’s only place; the place is back once it is gone', async () => {
    const url = new URL(`${live.origin}/v1/workspaces/${workspaceId}/restore`);
    const partial = httpRequest(url, {
      method: 'POST',
      headers: {
        authorization: `ApiKey ${user.apiKey}`,
        'content-type': 'application/json',
        'content-length': '100000',
      },
    });
    partial.on('error', () => {});
    partial.write('{"format":"expense-export",');
    const exportOf = () => live.request('GET', `/v1/workspaces/${workspaceId}/export`, { key: user.apiKey });
    await expect
      .poll(async () => (await exportOf()).body?.error?.code, { timeout: 10_000, interval: 100 })
      .toBe('too_many_concurrent_requests');
    partial.destroy();
    await expect.poll(async () => (await exportOf()).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
});
