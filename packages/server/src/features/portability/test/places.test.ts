// An export or a restore takes one of the caller's in-flight places before it reads anything (issue 40, reviewed
// under issue 35's attack model): a key cannot run restores of hundreds of MiB, or exports, without bound.
import { request as httpRequest } from 'node:http';
import { call, PGLITE, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, type Live, startLive, type TestUser } from '../../sql/test/setup.js';
import { MAX_RESTORES } from '../place.js';

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
    const url = new URL(`${live.origin}${routePath(API_ROUTES.restoreWorkspace, { workspaceId })}`);
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
    const exportOf = () =>
      call(live, API_ROUTES.exportWorkspace, { params: { workspaceId }, key: user.apiKey });
    await expect
      .poll(async () => (await exportOf()).body?.error?.code, { timeout: 10_000, interval: 100 })
      .toBe('too_many_concurrent_requests');
    partial.destroy();
    await expect.poll(async () => (await exportOf()).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });

  it(`holds at most ${MAX_RESTORES} restore bodies at once over all users: one more is 429 before its body is read`, async () => {
    const users = await Promise.all(
      Array.from({ length: MAX_RESTORES + 1 }, async (_, i) => {
        const u = await createUser(live.db, `restorer-${i}`);
        return { user: u, workspaceId: await addWorkspace(live.db, u.userId, `R${i}`) };
      }),
    );
    const partial = (key: string, id: string) => {
      const req = httpRequest(
        new URL(`${live.origin}${routePath(API_ROUTES.restoreWorkspace, { workspaceId: id })}`),
        {
          method: 'POST',
          headers: {
            authorization: `ApiKey ${key}`,
            'content-type': 'application/json',
            'content-length': '100000',
          },
        },
      );
      req.on('error', () => {});
      req.write('{"format":"expense-export",');
      return req;
    };
    // Sent as given, outside the route's body schema (call takes only bodies the schema allows).
    const restoreOf = (i: number) =>
      live.request(
        API_ROUTES.restoreWorkspace.method,
        routePath(API_ROUTES.restoreWorkspace, { workspaceId: users[i]!.workspaceId }),
        {
          key: users[i]!.user.apiKey,
          body: { format: 'not an export' },
        },
      );
    // Each of the first users holds a body still arriving, on a place of the server's.
    const held = users.slice(0, MAX_RESTORES).map((u) => partial(u.user.apiKey, u.workspaceId));
    const last = MAX_RESTORES;
    await expect
      .poll(async () => (await restoreOf(last)).body?.error?.code, { timeout: 10_000, interval: 100 })
      .toBe('rate_limited');
    const refused = await fetch(
      `${live.origin}${routePath(API_ROUTES.restoreWorkspace, { workspaceId: users[last]!.workspaceId })}`,
      {
        method: 'POST',
        headers: { authorization: `ApiKey ${users[last]!.user.apiKey}`, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { details: unknown } }).error.details).toEqual({
      retryAfterSeconds: 5,
    });
    for (const req of held) req.destroy();
    // Once they are gone, the same request is read (and refused for what it is: not an export).
    await expect
      .poll(async () => (await restoreOf(last)).body?.error?.code, { timeout: 10_000, interval: 100 })
      .not.toBe('rate_limited');
    expect((await restoreOf(last)).status).toBe(400);
  });
});
