// A key manages only what its consent covers (issue 21, item 5): a read-only or workspace-bound key (an OAuth
// token of such a consent included) sees itself in GET /v1/keys, revokes no other key of its user and lists no
// invitations. Before, such a token listed every key of the user, revoked the console session and the CLI's
// key, and read the invitations to other workspaces. Both engines.

import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../auth/api-keys.js';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';

describe.each(ENGINES)('keys of a narrow consent on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let home: string;
  let narrow: { name: string; apiKey: string; connectionId: string; access: 'read' | 'read_write' }[];

  beforeAll(async () => {
    live = await startLive(engine);
    user = await createUser(live.db);
    home = await addWorkspace(live.db, user.userId, 'Home');
    const readOnly = await createApiKey(live.db, user.userId, 'read-only', { access: 'read' });
    const bound = await createApiKey(live.db, user.userId, 'bound', { workspaceId: home });
    // An OAuth token of a read-write consent to all workspaces: a connection for data, not for the account.
    await live.db.query(
      `INSERT INTO expense_internal.oauth_clients (client_id, client_name, redirect_uris)
       VALUES ('narrow-client', 'Narrow client', '["http://127.0.0.1/cb"]')`,
    );
    const grant = await live.db.query<{ grant_id: string }>(
      `INSERT INTO expense_internal.oauth_grants (client_id, user_id, resource, access, expires_at)
       VALUES ('narrow-client', $1, $2, 'read_write', now() + interval '1 day') RETURNING grant_id`,
      [user.userId, `${live.origin}/mcp`],
    );
    const oauth = await createApiKey(live.db, user.userId, 'Narrow client', { kind: 'oauth' });
    await live.db.query('UPDATE expense_internal.api_keys SET oauth_grant_id = $1 WHERE connection_id = $2', [
      grant.rows[0]!.grant_id,
      oauth.connectionId,
    ]);
    narrow = [
      { name: 'read-only', ...readOnly, access: 'read' },
      { name: 'workspace-bound', ...bound, access: 'read_write' },
      { name: 'oauth', ...oauth, access: 'read_write' },
    ];
  });
  afterAll(() => live?.close());

  it("attack: a narrow key neither lists nor revokes the user's other keys", async () => {
    for (const key of narrow) {
      const list = await call(live, API_ROUTES.keys, { key: key.apiKey });
      expect(list.status, key.name).toBe(200);
      expect(
        list.body.data.keys.map((k: { connectionId: string; current: boolean }) => [
          k.connectionId,
          k.current,
        ]),
        key.name,
      ).toEqual([[key.connectionId, true]]);
      expect(list.body.instructions.join(' '), key.name).toMatch(/only this key/);
      const revoke = await call(live, API_ROUTES.revokeKey, {
        params: { connectionId: user.connectionId },
        key: key.apiKey,
      });
      expect(revoke.status, key.name).toBe(403);
      expect(revoke.body.error.code, key.name).toBe('forbidden');
    }
    expect((await call(live, API_ROUTES.me, { key: user.apiKey })).status).toBe(200);
    // The user's full key still sees and manages them all.
    const all = await call(live, API_ROUTES.keys, { key: user.apiKey });
    expect(all.body.data.keys).toHaveLength(1 + narrow.length);
  });

  it('attack: a read-only or workspace-bound key lists no invitations', async () => {
    const owner = await createUser(live.db);
    const shop = await addWorkspace(live.db, owner.userId, 'Shop');
    const invited = await call(live, API_ROUTES.addMember, {
      params: { workspaceId: shop },
      key: owner.apiKey,
      body: { email: user.email },
    });
    expect(invited.status).toBe(201);
    for (const key of narrow.filter((k) => k.name !== 'oauth')) {
      const res = await call(live, API_ROUTES.invitations, { key: key.apiKey });
      expect(res.status, key.name).toBe(403);
      expect(res.body.error.code, key.name).toBe('forbidden');
      expect(res.body.error.hint, key.name).toMatch(/console/);
    }
    const full = await call(live, API_ROUTES.invitations, { key: user.apiKey });
    expect(full.body.data.invitations.map((i: { workspaceId: string }) => i.workspaceId)).toEqual([shop]);
  });

  it('a workspace-bound key may still revoke itself', async () => {
    const bound = await createApiKey(live.db, user.userId, 'leaving', { workspaceId: home });
    const res = await call(live, API_ROUTES.revokeKey, {
      params: { connectionId: bound.connectionId },
      key: bound.apiKey,
    });
    expect(res.status).toBe(204);
    expect((await call(live, API_ROUTES.me, { key: bound.apiKey })).status).toBe(401);
  });
});
