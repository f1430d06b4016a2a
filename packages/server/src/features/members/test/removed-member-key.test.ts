// Issue 39, item 5: a key that ended because its holder was removed from a workspace says so. The refusal stays 401
// invalid_api_key (the contract's code for revoked keys) with details naming the workspace, and a hint that signing in
// again does not restore it: ask an owner for a new invitation. A key revoked any other way keeps the plain refusal.
// Over /v1 and /mcp, on PGlite and PostgreSQL.
import { call } from '@expense/test-kit';
import { API_ROUTES, resolveError } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

describe.each(ENGINES)('the refusal of a key ended by a removal on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let member: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user: owner, workspaceId } = await startWithWorkspace(engine));
    member = await createUser(live.db, 'member laptop');
    const invited = await call(live, API_ROUTES.addMember, {
      params: { workspaceId },
      key: owner.apiKey,
      body: { email: member.email },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const accepted = await call(live, API_ROUTES.acceptInvitation, {
      params: { workspaceId },
      key: member.apiKey,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await call(live, API_ROUTES.me, { key: member.apiKey })).status).toBe(200);
    const removed = await call(live, API_ROUTES.removeMember, {
      params: { workspaceId, userId: member.userId },
      key: owner.apiKey,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
  });
  afterAll(async () => live?.close());

  const removal = resolveError('invalid_api_key', 'removed_from_workspace');

  it('says the key ended with the removal, names the workspace, and that signing in again does not restore it', async () => {
    const res = await call(live, API_ROUTES.me, { key: member.apiKey });
    expect(res.status).toBe(401);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatchObject({
      code: 'invalid_api_key',
      retryable: false,
      hint: removal.hint,
      details: { reason: 'removed_from_workspace', workspaceId, workspaceName: 'Home' },
    });
    expect(res.body.error.message).toMatch(/removed you from the workspace "Home"/);
    expect(Number.isNaN(Date.parse(res.body.error.details.revokedAt))).toBe(false);
    expect(res.body.error.hint).toMatch(/invite you again/);
    expect(res.body.error.hint).toMatch(/Signing in again .* never that one/);
  });

  it('says the same on /mcp, beside the Bearer challenge', async () => {
    const res = await live.request('POST', '/mcp', {
      key: member.apiKey,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
    expect(res.body.error).toMatchObject({
      code: 'invalid_api_key',
      hint: removal.hint,
      details: { reason: 'removed_from_workspace', workspaceId },
    });
  });

  it('keeps the plain refusal for a key its owner revoked, and for a key never issued', async () => {
    const other = await createUser(live.db, 'other');
    const keys = await call(live, API_ROUTES.keys, { key: other.apiKey });
    const own = keys.body.data.keys.find((k: { current: boolean }) => k.current);
    expect(
      (
        await call(live, API_ROUTES.revokeKey, {
          params: { connectionId: own.connectionId },
          key: other.apiKey,
        })
      ).status,
    ).toBe(204);
    const plain = resolveError('invalid_api_key');
    for (const key of [other.apiKey, `${member.apiKey.slice(0, -4)}AAAA`]) {
      const res = await call(live, API_ROUTES.me, { key });
      expect(res.status).toBe(401);
      expect(res.body.error.hint).toBe(plain.hint);
      expect(res.body.error.details).toBeUndefined();
    }
  });
});
