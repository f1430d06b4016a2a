// Invitations are bounded: pending per workspace and per invited address, new ones per address and per
// workspace per hour; each refusal is 429 rate_limited with Retry-After, a policy and a hint. Withdrawing an
// invitation of an address that never signed in leaves no user row. Real HTTP on both engines.
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { INVITATION_LIMITS } from '../limits.js';

describe.each(ENGINES)('invitation limits on $name', (engine) => {
  let live: Live;
  let owner: TestUser;

  beforeAll(async () => {
    live = await startLive(engine);
  });
  afterAll(async () => live?.close());
  // Each test its own owner: the hourly limit per inviting user would otherwise carry from one test to the next.
  beforeEach(async () => {
    owner = await createUser(live.db);
  });

  const invite = (workspaceId: string, email: string, apiKey = owner.apiKey) =>
    call(live, API_ROUTES.addMember, { params: { workspaceId }, key: apiKey, body: { email } });
  const userRows = async (pattern: string) =>
    Number(
      (
        await live.db.query<{ n: string }>(
          'SELECT count(*) AS n FROM expense_internal.users WHERE email LIKE $1',
          [pattern],
        )
      ).rows[0]!.n,
    );

  it('attack: an owner invites addresses without end; the 51st pending invitation is refused', async () => {
    const ws = await addWorkspace(live.db, owner.userId, 'Spam');
    for (let i = 0; i < INVITATION_LIMITS.pendingPerWorkspace; i++) {
      expect((await invite(ws, `spam-${i}@example.test`)).status).toBe(201);
    }
    const refused = await invite(ws, 'spam-extra@example.test');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      details: { policy: 'pending-invitations-per-workspace', limit: 50, pending: 50 },
    });
    expect(refused.body.error.hint).toMatch(/Withdraw/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refused address left no user row behind.
    expect(await userRows('spam-extra@%')).toBe(0);
    // Inviting an address already invited is no new invitation: still answered.
    expect((await invite(ws, 'spam-0@example.test')).status).toBe(200);
    // Withdrawing frees a place, and an address that never signed in leaves nothing behind.
    const members = await call(live, API_ROUTES.members, { params: { workspaceId: ws }, key: owner.apiKey });
    const invited = members.body.data.members.find(
      (m: { email: string }) => m.email === 'spam-1@example.test',
    );
    const withdrawn = await call(live, API_ROUTES.removeMember, {
      params: { workspaceId: ws, userId: invited.userId },
      key: owner.apiKey,
    });
    expect(withdrawn.status).toBe(204);
    expect(await userRows('spam-1@%')).toBe(0);
    expect((await invite(ws, 'spam-extra@example.test')).status).toBe(201);
  });

  it('attack: many workspaces invite one address; the 6th new invitation within an hour is refused', async () => {
    const victim = 'victim@example.test';
    for (let i = 0; i < INVITATION_LIMITS.perAddress.points; i++) {
      const ws = await addWorkspace(live.db, owner.userId, `Lure ${i}`);
      expect((await invite(ws, victim)).status).toBe(201);
    }
    const ws = await addWorkspace(live.db, owner.userId, 'Lure extra');
    const refused = await invite(ws, victim);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.message).toMatch(/new invitations of this address/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await invite(ws, 'bystander@example.test')).status).toBe(201);
  });

  it('caps the pending invitations of one address at 20, from all workspaces', async () => {
    const crowded = await createUser(live.db, 'crowded');
    for (let i = 0; i < INVITATION_LIMITS.pendingPerAddress; i++) {
      const other = await createUser(live.db);
      const ws = await addWorkspace(live.db, other.userId, `Other ${i}`);
      await live.db.query(
        `INSERT INTO expense_internal.workspace_invitations (workspace_id, user_id, invited_by) VALUES ($1, $2, $3)`,
        [ws, crowded.userId, other.userId],
      );
    }
    const ws = await addWorkspace(live.db, owner.userId, 'One more');
    const refused = await invite(ws, crowded.email);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      details: { policy: 'pending-invitations-per-address', limit: 20, pending: 20 },
    });
    expect(refused.body.error.hint).toMatch(/accept or decline/);
    // The invitee declines one: a place is free.
    const list = await call(live, API_ROUTES.invitations, { key: crowded.apiKey });
    const first = list.body.data.invitations[0].workspaceId;
    expect(
      (
        await call(live, API_ROUTES.declineInvitation, {
          params: { workspaceId: first },
          key: crowded.apiKey,
        })
      ).status,
    ).toBe(204);
    expect((await invite(ws, crowded.email)).status).toBe(201);
  });

  it('attack: an owner mails addresses from many workspaces; the 101st new invitation within an hour is refused', async () => {
    // Every new invitation is an e-mail: the per-workspace bound times 50 workspaces would be 5,000 an hour.
    const spread = INVITATION_LIMITS.perInviter.points / 2;
    for (const name of ['Mailer A', 'Mailer B']) {
      const ws = await addWorkspace(live.db, owner.userId, name);
      for (let i = 0; i < spread; i++) {
        expect((await invite(ws, `${name.at(-1)}-${i}@mailed.test`)).status).toBe(201);
      }
    }
    const ws = await addWorkspace(live.db, owner.userId, 'Mailer C');
    const refused = await invite(ws, 'one-more@mailed.test');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(refused.body.error.message).toMatch(/new invitations you send/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await userRows('one-more@%')).toBe(0);
    // Another owner is not affected.
    const other = await createUser(live.db);
    const theirs = await addWorkspace(live.db, other.userId, 'Elsewhere');
    expect((await invite(theirs, 'one-more@mailed.test', other.apiKey)).status).toBe(201);
  });

  it('limits new invitations from one workspace to 100 an hour, withdrawn ones included', async () => {
    const ws = await addWorkspace(live.db, owner.userId, 'Churn');
    for (let i = 0; i < INVITATION_LIMITS.perWorkspace.points; i++) {
      const res = await invite(ws, `churn-${i}@example.test`);
      expect(res.status).toBe(201);
      const withdrawn = await call(live, API_ROUTES.removeMember, {
        params: { workspaceId: ws, userId: res.body.data.member.userId },
        key: owner.apiKey,
      });
      expect(withdrawn.status).toBe(204);
    }
    const refused = await invite(ws, 'churn-extra@example.test');
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/new invitations from this workspace/);
    expect(await userRows('churn-%')).toBe(0);
  });
});
