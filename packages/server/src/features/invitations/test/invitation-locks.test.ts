// Invitations never wait for a lock (issue 35, item 2). The old admission locked the workspace row FOR UPDATE, which
// waits for the FOR KEY SHARE that every INSERT of the same user into a workspace's table holds through its foreign
// key: each invitation held one of the server's 4 internal connections for the 2 s lock timeout, and a bystander's
// GET /v1/me waited behind them. Now the cheap refusals come first, the serialising lock is an advisory lock no user
// can take, taken without waiting, and every refused attempt counts against the inviter's hourly limit. Real HTTP;
// the lock-holding cases on PostgreSQL, direct and through PgBouncer (the embedded engine has one session, so a
// user's open transaction and an invitation never run side by side there).
import { call, pooledEngines } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../platform/storage/index.js';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  type Response,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { INVITATION_LIMITS } from '../limits.js';
import { invitationLockKeys } from '../locks.js';

/** A liveness bound, not a timing: an answer that never comes fails on its value. */
const within = <T>(work: Promise<T>, ms = 60_000): Promise<T | 'no answer'> =>
  Promise.race([
    work,
    new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), ms).unref()),
  ]);

/** `n` pending invitations of fresh addresses, written directly: the workspace is then at its pending cap. */
async function fillPending(db: Database, workspaceId: string, invitedBy: string, n: number): Promise<void> {
  await db.query(
    `WITH u AS (
       INSERT INTO expense_internal.users (email)
       SELECT format('held-%s-%s@example.test', $1::text, g) FROM generate_series(1, $2::int) AS g
       RETURNING user_id)
     INSERT INTO expense_internal.workspace_invitations (workspace_id, user_id, invited_by)
     SELECT $1::uuid, user_id, $3::uuid FROM u`,
    [workspaceId, n, invitedBy],
  );
}

function expectInviterLimit(res: Response): void {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({
    code: 'rate_limited',
    retryable: true,
    details: { limit: INVITATION_LIMITS.perInviter.points },
  });
  expect(res.body.error.message).toMatch(/new invitations you send/);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

function expectBusy(res: Response): void {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({
    code: 'rate_limited',
    retryable: true,
    details: { policy: 'invitation-in-progress', retryAfterSeconds: 1 },
  });
  expect(res.body.error.hint).toMatch(/again/);
  expect(res.headers.get('retry-after')).toBe('1');
}

const countUsers = async (db: Database, pattern: string) =>
  (
    await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM expense_internal.users WHERE email LIKE $1',
      [pattern],
    )
  ).rows[0]!.n;

describe.each(ENGINES)('refused invitations count against the hourly limit on $name', (engine) => {
  let live: Live;
  let owner: TestUser;

  beforeAll(async () => {
    live = await startLive(engine);
  });
  afterAll(async () => live?.close());
  beforeEach(async () => {
    owner = await createUser(live.db);
  });

  const invite = (workspaceId: string, email: string, key = owner.apiKey) =>
    call(live, API_ROUTES.addMember, { params: { workspaceId }, key, body: { email } });

  it('attack: invitations refused at the pending cap, repeated; the hourly limit ends them', async () => {
    const full = [
      await addWorkspace(live.db, owner.userId, 'Full A'),
      await addWorkspace(live.db, owner.userId, 'Full B'),
    ];
    for (const ws of full)
      await fillPending(live.db, ws, owner.userId, INVITATION_LIMITS.pendingPerWorkspace);
    const perWorkspace = INVITATION_LIMITS.perInviter.points / full.length;
    for (const [w, ws] of full.entries()) {
      for (let i = 0; i < perWorkspace; i++) {
        const refused = await invite(ws, `refused-${w}-${i}@example.test`);
        expect(refused.status).toBe(429);
        expect(refused.body.error.details.policy).toBe('pending-invitations-per-workspace');
      }
    }
    // 100 refused attempts spent the inviter's hour: a workspace with room refuses too, before any database write.
    const fresh = await addWorkspace(live.db, owner.userId, 'Room');
    expectInviterLimit(await invite(fresh, 'one-more@example.test'));
    expect(await countUsers(live.db, 'refused-%')).toBe(0);
    expect(await countUsers(live.db, 'one-more@%')).toBe(0);
    // Another owner is not affected.
    const other = await createUser(live.db);
    const theirs = await addWorkspace(live.db, other.userId, 'Elsewhere');
    expect((await invite(theirs, 'one-more@example.test', other.apiKey)).status).toBe(201);
  });

  it('attack: an address refused by its own hourly limit still spends the inviter’s', async () => {
    const victim = 'victim@example.test';
    const lures: string[] = [];
    for (let i = 0; i <= INVITATION_LIMITS.perAddress.points; i++)
      lures.push(await addWorkspace(live.db, owner.userId, `Lure ${i}`));
    for (const ws of lures.slice(0, INVITATION_LIMITS.perAddress.points))
      expect((await invite(ws, victim)).status).toBe(201);
    const last = lures.at(-1)!;
    const repeats = INVITATION_LIMITS.perInviter.points - INVITATION_LIMITS.perAddress.points;
    for (let i = 0; i < repeats; i++) {
      const refused = await invite(last, victim);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(/new invitations of this address/);
    }
    expectInviterLimit(await invite(last, 'someone-else@example.test'));
  });
});

const LOCKING_ENGINES = [
  ...ENGINES.filter((engine) => engine.kind !== 'pglite'),
  ...pooledEngines('the invitation lock tests through PgBouncer'),
];

describe.each(LOCKING_ENGINES)('invitations behind a user’s open write on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let workspaceId: string;
  let holder: pg.Client;

  beforeAll(async () => {
    live = await startLive(engine);
  });
  afterAll(async () => live?.close());
  beforeEach(async () => {
    owner = await createUser(live.db);
    workspaceId = await addWorkspace(live.db, owner.userId, 'Held');
    holder = new pg.Client({ connectionString: live.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    return async () => {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    };
  });

  const invite = (ws: string, email: string, key = owner.apiKey) =>
    call(live, API_ROUTES.addMember, { params: { workspaceId: ws }, key, body: { email } });

  /** What every write of the workspace's user holds until its COMMIT: FOR KEY SHARE on the workspace row. */
  const holdInsert = () =>
    holder.query(
      `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category)
       VALUES ($1, now(), 'checking', 1, 'EUR', 'spend', 'held open')`,
      [workspaceId],
    );

  /** The lock a FOR UPDATE of the workspace row (the old admission) would have waited for. */
  async function expectWorkspaceRowHeld(): Promise<void> {
    const probe = new pg.Client({ connectionString: live.databaseUrl });
    await probe.connect();
    try {
      await probe.query('BEGIN');
      const failed = await probe
        .query('SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1 FOR UPDATE NOWAIT', [
          workspaceId,
        ])
        .catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: '55P03' });
    } finally {
      await probe.query('ROLLBACK').catch(() => undefined);
      await probe.end();
    }
  }

  it('attack: a write held open on the workspace; the invitation answers 201 without waiting for it', async () => {
    await holdInsert();
    await expectWorkspaceRowHeld();
    const answer = await within(invite(workspaceId, 'behind-a-write@example.test'));
    expect(answer).not.toBe('no answer');
    expect((answer as Response).status).toBe(201);
    expect((answer as Response).body.data.member).toMatchObject({ status: 'invited' });
  });

  it('attack: ten invitations at once behind the held write; a bystander’s /v1/me answers, each invitation is coded and counted', async () => {
    await holdInsert();
    const bystander = await createUser(live.db);
    await addWorkspace(live.db, bystander.userId, 'Bystander');
    const attempts = Array.from({ length: 10 }, (_, i) => invite(workspaceId, `ten-${i}@example.test`));
    const me = call(live, API_ROUTES.me, { key: bystander.apiKey });
    const settled = await within(Promise.all([me, Promise.all(attempts)]));
    expect(settled).not.toBe('no answer');
    const [meAnswer, answers] = settled as [Response, Response[]];
    expect(meAnswer.status).toBe(200);
    const created = answers.filter((a) => a.status === 201);
    for (const refused of answers.filter((a) => a.status !== 201)) expectBusy(refused);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const { rows } = await live.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM expense_internal.workspace_invitations WHERE workspace_id = $1',
      [workspaceId],
    );
    expect(rows[0]!.n).toBe(created.length);
    // All ten spent the inviter's hour, the busy ones too: 90 more (refused at a full workspace) end it.
    const full = await addWorkspace(live.db, owner.userId, 'Full');
    await fillPending(live.db, full, owner.userId, INVITATION_LIMITS.pendingPerWorkspace);
    for (let i = 0; i < INVITATION_LIMITS.perInviter.points - 10; i++)
      expect((await invite(full, `after-${i}@example.test`)).status).toBe(429);
    expectInviterLimit(await invite(await addWorkspace(live.db, owner.userId, 'Room'), 'last@example.test'));
  });

  it('answers busy while another invitation of the workspace is being written, and repeated busy refusals end in the hourly limit', async () => {
    // The workspace's invitation lock, as an invitation being written holds it.
    const [space, key] = invitationLockKeys(workspaceId, 'unused@example.test')[0]!;
    await holder.query('SELECT pg_advisory_xact_lock($1::int4, $2::int4)', [space, key]);
    const rooms = [workspaceId, await addWorkspace(live.db, owner.userId, 'Second')];
    // The second workspace is not locked: only the first's attempts are busy.
    for (let i = 0; i < INVITATION_LIMITS.perInviter.points / 2; i++) {
      expectBusy(await invite(workspaceId, `busy-${i}@example.test`));
    }
    await fillPending(live.db, rooms[1]!, owner.userId, INVITATION_LIMITS.pendingPerWorkspace);
    for (let i = 0; i < INVITATION_LIMITS.perInviter.points / 2; i++) {
      expect((await invite(rooms[1]!, `capped-${i}@example.test`)).status).toBe(429);
    }
    expectInviterLimit(await invite(await addWorkspace(live.db, owner.userId, 'Room'), 'last@example.test'));
    expect(await countUsers(live.db, 'busy-%')).toBe(0);
  });

  it('the SQL role cannot take an advisory lock (so no user can hold the invitation lock)', async () => {
    const { rows } = await live.db.query<{ fn: string; executable: boolean }>(
      `SELECT p.oid::regprocedure::text AS fn, has_function_privilege('expense_sql', p.oid, 'EXECUTE') AS executable
       FROM pg_catalog.pg_proc AS p WHERE p.proname LIKE 'pg\\_%advisory%'`,
    );
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.filter((r) => r.executable).map((r) => r.fn)).toEqual([]);
    const tried = await call(live, API_ROUTES.sqlQuery, {
      key: owner.apiKey,
      headers: { 'x-workspace-id': workspaceId },
      body: { sql: 'SELECT pg_try_advisory_xact_lock(1768846967, 1) AS locked' },
    });
    expect(tried.status).toBe(400);
  });
});
