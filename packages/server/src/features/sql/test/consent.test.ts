// Membership needs the invitee's consent (issue 11, finding 4): an invitation grants nothing, withdrawing it
// touches no key, and a newcomer's first SQL never lands in an inviter's workspace. Real HTTP, both engines.
import {
  type Client,
  ENGINES,
  removeDir,
  routePath,
  type SignedIn,
  signIn,
  socketClient,
  tempDir,
} from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startLive } from './setup.js';

describe.each(ENGINES)('membership with consent on $name', (engine) => {
  let live: Live;
  let outbox: string;
  let c: Client;

  beforeAll(async () => {
    outbox = await tempDir();
    live = await startLive(engine, { mailOutbox: outbox });
    c = socketClient(live.origin);
  });

  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  async function workspaceOf(owner: SignedIn, name: string): Promise<string> {
    const res = await c.request('POST', routePath(API_ROUTES.createWorkspace), {
      key: owner.apiKey,
      body: { name },
    });
    expect(res.status).toBe(201);
    return res.body.data.workspace.workspaceId;
  }

  const invite = (owner: SignedIn, workspaceId: string, email: string) =>
    c.request('POST', routePath(API_ROUTES.addMember, { workspaceId }), {
      key: owner.apiKey,
      body: { email },
    });

  it('attack: adding an address, reading its userId and removing it no longer revokes its keys', async () => {
    const victim = await signIn(c, outbox, 'victim@example.com');
    const victimPhone = await signIn(c, outbox, 'victim@example.com', 'phone');
    const attacker = await signIn(c, outbox, 'attacker@example.com');
    const ws = await workspaceOf(attacker, 'Trap');
    for (let round = 0; round < 2; round++) {
      const added = await invite(attacker, ws, 'VICTIM@example.com');
      expect(added.status).toBe(201);
      expect(added.body.data.member).toMatchObject({
        userId: victim.user.userId,
        email: 'victim@example.com',
        role: 'member',
        status: 'invited',
      });
      const removed = await c.request(
        'DELETE',
        routePath(API_ROUTES.removeMember, { workspaceId: ws, userId: victim.user.userId }),
        {
          key: attacker.apiKey,
        },
      );
      expect(removed.status).toBe(204);
      for (const key of [victim.apiKey, victimPhone.apiKey]) {
        expect((await c.request('GET', routePath(API_ROUTES.me), { key })).status).toBe(200);
      }
    }
    const keys = await live.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM expense_internal.api_keys WHERE user_id = $1 AND revoked_at IS NULL',
      [victim.user.userId],
    );
    expect(keys.rows[0]!.n).toBe(2);
  });

  it("attack: a newcomer's first SQL does not auto-select the inviter's workspace, and their rows stay theirs", async () => {
    const inviter = await signIn(c, outbox, 'inviter@example.com');
    const ws = await workspaceOf(inviter, 'Watching');
    expect((await invite(inviter, ws, 'newcomer@example.com')).status).toBe(201);

    const newcomer = await signIn(c, outbox, 'newcomer@example.com');
    const insert = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note)
                    VALUES ('2026-01-02', 'private-bank', -42.50, 'EUR', 'spend', 'my private note')`;
    const first = await c.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: newcomer.apiKey,
      body: { sql: insert },
    });
    expect(first.status).toBe(400);
    expect(first.body.error.code).toBe('missing_workspace');
    expect(first.body.error.details.workspaces).toEqual([]);
    // The idempotent path resolves the workspace the other way: no auto-selection there either.
    const keyed = await c.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: newcomer.apiKey,
      body: { sql: insert },
      headers: { 'idempotency-key': 'first-import' },
    });
    expect(keyed.body.error.code).toBe('missing_workspace');
    const me = await c.request('GET', routePath(API_ROUTES.me), { key: newcomer.apiKey });
    expect(me.body.data.selectedWorkspaceId).toBeNull();

    // The newcomer creates their own workspace: it is their only one and gets auto-selected.
    const own = await workspaceOf(newcomer, 'Mine');
    const again = await c.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: newcomer.apiKey,
      body: { sql: insert },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.workspaceId).toBe(own);
    const seen = await c.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: inviter.apiKey,
      body: { sql: 'SELECT count(*) AS n FROM ledger_entries' },
      headers: { 'x-workspace-id': ws },
    });
    expect(seen.body.data.statements[0].rows).toEqual([{ n: '0' }]);
  });

  it('an invitation grants nothing: no workspace, no select, no X-Workspace-Id, no rows', async () => {
    const owner = await signIn(c, outbox, 'owner-grants@example.com');
    const ws = await workspaceOf(owner, 'Private books');
    const seed = await c.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: owner.apiKey,
      headers: { 'x-workspace-id': ws },
      body: {
        sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES ('2026-01-01', 'a', 1, 'USD', 'income')`,
      },
    });
    expect(seed.status).toBe(200);
    const guest = await signIn(c, outbox, 'guest-grants@example.com');
    expect((await invite(owner, ws, 'guest-grants@example.com')).status).toBe(201);

    const listed = await c.request('GET', routePath(API_ROUTES.workspaces), { key: guest.apiKey });
    expect(listed.body.data.workspaces).toEqual([]);
    expect(listed.body.instructions.join(' ')).toMatch(/1 pending invitation.*GET \/invitations/);
    expect(listed.body.actions.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['list_invitations', 'accept_invitation', 'decline_invitation']),
    );
    const me = await c.request('GET', routePath(API_ROUTES.me), { key: guest.apiKey });
    expect(me.body.instructions.join(' ')).toMatch(/pending invitation/);
    expect(me.body.actions.map((a: { name: string }) => a.name)).toContain('list_invitations');

    const select = await c.request('POST', routePath(API_ROUTES.selectWorkspace, { workspaceId: ws }), {
      key: guest.apiKey,
    });
    expect(select.status).toBe(404);
    expect(select.body.error.code).toBe('workspace_not_found');
    const attempts: Record<string, string>[] = [
      { 'x-workspace-id': ws },
      { 'x-workspace-id': ws, 'idempotency-key': 'k1' },
    ];
    for (const headers of attempts) {
      const sql = await c.request('POST', routePath(API_ROUTES.sqlExecute), {
        key: guest.apiKey,
        headers,
        body: { sql: `DELETE FROM ledger_entries WHERE account_id = 'a'` },
      });
      expect(sql.status).toBe(404);
      expect(sql.body.error.code).toBe('workspace_not_found');
    }
    const members = await c.request('GET', routePath(API_ROUTES.members, { workspaceId: ws }), {
      key: guest.apiKey,
    });
    expect(members.status).toBe(404);

    // Below the HTTP layer too: row-level security gives an invited user's transaction no row.
    const rows = await live.db.userTransaction(
      { userId: guest.user.userId, workspaceId: ws, readOnly: true },
      (session) => session.query('SELECT count(*)::int AS n FROM ledger_entries'),
    );
    expect(rows.rows).toEqual([{ n: '0' }]);

    const ownerView = await c.request('GET', routePath(API_ROUTES.members, { workspaceId: ws }), {
      key: owner.apiKey,
    });
    expect(ownerView.body.data.members).toEqual([
      expect.objectContaining({ email: 'owner-grants@example.com', role: 'owner', status: 'active' }),
      expect.objectContaining({
        userId: guest.user.userId,
        email: 'guest-grants@example.com',
        role: 'member',
        status: 'invited',
      }),
    ]);
    const repeated = await invite(owner, ws, 'guest-grants@example.com');
    expect(repeated.status).toBe(200);
    expect(repeated.body.data.member.status).toBe('invited');
  });

  it('accept makes an active member (who can then be removed, keys and all); decline and withdraw', async () => {
    const owner = await signIn(c, outbox, 'owner-accept@example.com');
    const ws = await workspaceOf(owner, 'Shared books');
    // An address that never signed in can be invited, and accepts after signing in.
    expect((await invite(owner, ws, 'Later@Example.com')).status).toBe(201);
    const later = await signIn(c, outbox, 'later@example.com');
    const pending = await c.request('GET', routePath(API_ROUTES.invitations), { key: later.apiKey });
    expect(pending.status).toBe(200);
    expect(pending.body.data.invitations).toEqual([
      {
        workspaceId: ws,
        workspaceName: 'Shared books',
        invitedBy: { email: 'owner-accept@example.com' },
        invitedAt: expect.any(String),
      },
    ]);
    expect(pending.body.actions.map((a: { name: string }) => a.name)).toEqual([
      'accept_invitation',
      'decline_invitation',
    ]);
    const accepted = await c.request('POST', routePath(API_ROUTES.acceptInvitation, { workspaceId: ws }), {
      key: later.apiKey,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.workspace).toEqual({ workspaceId: ws, name: 'Shared books', role: 'member' });
    expect(
      (await c.request('GET', routePath(API_ROUTES.invitations), { key: later.apiKey })).body.data
        .invitations,
    ).toEqual([]);
    const twice = await c.request('POST', routePath(API_ROUTES.acceptInvitation, { workspaceId: ws }), {
      key: later.apiKey,
    });
    expect(twice.status).toBe(404);
    expect(twice.body.error.code).toBe('not_found');
    const listed = await c.request('GET', routePath(API_ROUTES.workspaces), { key: later.apiKey });
    expect(listed.body.data.workspaces).toEqual([
      { workspaceId: ws, name: 'Shared books', role: 'member', selected: false },
    ]);
    expect(listed.body.instructions.join(' ')).not.toMatch(/invitation/);
    // Now the only workspace, consented to: auto-selected for SQL.
    const sql = await c.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: later.apiKey,
      body: { sql: 'SELECT 1 AS one' },
    });
    expect(sql.status).toBe(200);
    expect(sql.body.data.workspaceId).toBe(ws);
    const members = await c.request('GET', routePath(API_ROUTES.members, { workspaceId: ws }), {
      key: later.apiKey,
    });
    expect(members.body.data.members.map((m: { status: string }) => m.status)).toEqual(['active', 'active']);

    // Decline.
    const other = await workspaceOf(owner, 'Declined books');
    expect((await invite(owner, other, 'later@example.com')).status).toBe(201);
    const declined = await c.request(
      'DELETE',
      routePath(API_ROUTES.declineInvitation, { workspaceId: other }),
      { key: later.apiKey },
    );
    expect(declined.status).toBe(204);
    expect(
      (
        await c.request('DELETE', routePath(API_ROUTES.declineInvitation, { workspaceId: other }), {
          key: later.apiKey,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await c.request('POST', routePath(API_ROUTES.acceptInvitation, { workspaceId: other }), {
          key: later.apiKey,
        })
      ).status,
    ).toBe(404);
    expect((await c.request('POST', '/v1/invitations/not-a-uuid/accept', { key: later.apiKey })).status).toBe(
      404,
    );
    const afterDecline = await c.request('GET', routePath(API_ROUTES.members, { workspaceId: other }), {
      key: owner.apiKey,
    });
    expect(afterDecline.body.data.members).toHaveLength(1);

    // Withdraw (the owner deletes an invitation): the invitee's keys are untouched, the invitation is gone.
    expect((await invite(owner, other, 'later@example.com')).status).toBe(201);
    const withdrawn = await c.request(
      'DELETE',
      routePath(API_ROUTES.removeMember, { workspaceId: other, userId: later.user.userId }),
      {
        key: owner.apiKey,
      },
    );
    expect(withdrawn.status).toBe(204);
    expect((await c.request('GET', routePath(API_ROUTES.me), { key: later.apiKey })).status).toBe(200);
    expect(
      (await c.request('GET', routePath(API_ROUTES.invitations), { key: later.apiKey })).body.data
        .invitations,
    ).toEqual([]);

    // Removing the ACTIVE member revokes all of their keys (the rule they agreed to by accepting).
    const removed = await c.request(
      'DELETE',
      routePath(API_ROUTES.removeMember, { workspaceId: ws, userId: later.user.userId }),
      {
        key: owner.apiKey,
      },
    );
    expect(removed.status).toBe(204);
    expect((await c.request('GET', routePath(API_ROUTES.me), { key: later.apiKey })).body.error.code).toBe(
      'invalid_api_key',
    );
    const last = await c.request(
      'DELETE',
      routePath(API_ROUTES.removeMember, { workspaceId: ws, userId: owner.user.userId }),
      {
        key: owner.apiKey,
      },
    );
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe('last_owner');
  });
});
