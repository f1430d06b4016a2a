// The owner's write routes take an Idempotency-Key as the SQL endpoints do (docs/api.md, "Idempotency"): creating
// a workspace, renaming one, inviting a member. A repeat answers the first answer, marked replayed, and writes
// nothing; another body with the same key is refused. Real HTTP on both engines.
import { readdir } from 'node:fs/promises';
import { lastMailTo, removeDir, routePath, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitationLockKeys } from '../../../features/invitations/locks.js';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../../features/sql/test/setup.js';

describe.each(ENGINES)('Idempotency-Key on the owner routes on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let outbox: string;

  beforeAll(async () => {
    outbox = await tempDir();
    live = await startLive(engine, { mailOutbox: outbox });
    owner = await createUser(live.db);
  });
  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  const send = (method: string, path: string, body: unknown, key?: string) =>
    live.request(method, path, {
      key: owner.apiKey,
      body,
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });
  const workspaceCount = async () =>
    (
      await live.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM expense_internal.workspace_members WHERE user_id = $1',
        [owner.userId],
      )
    ).rows[0]!.n;

  it('creates one workspace for a repeated POST /workspaces, and refuses the key for another body', async () => {
    const before = await workspaceCount();
    const body = { name: 'Holiday fund', currency: 'EUR', timeZone: 'Europe/Berlin' };
    const first = await send('POST', routePath(API_ROUTES.createWorkspace), body, 'create-holiday-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send('POST', routePath(API_ROUTES.createWorkspace), body, 'create-holiday-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await workspaceCount()).toBe(before + 1);

    const other = await send(
      'POST',
      routePath(API_ROUTES.createWorkspace),
      { ...body, name: 'Other' },
      'create-holiday-1',
    );
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(await workspaceCount()).toBe(before + 1);

    // Without a key every request is its own.
    expect((await send('POST', routePath(API_ROUTES.createWorkspace), { name: 'No key' })).status).toBe(201);
    expect((await send('POST', routePath(API_ROUTES.createWorkspace), { name: 'No key 2' })).status).toBe(
      201,
    );
    expect(await workspaceCount()).toBe(before + 3);
  });

  it('keeps a refusal as the answer to its key: a repeat is refused the same way', async () => {
    const bad = { name: 'Zoned', timeZone: 'Mars/Olympus_Mons' };
    const first = await send('POST', routePath(API_ROUTES.createWorkspace), bad, 'create-zoned');
    expect(first.status).toBe(400);
    const again = await send('POST', routePath(API_ROUTES.createWorkspace), bad, 'create-zoned');
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe(first.body.error.code);
  });

  it('renames once for a repeated PATCH, and answers the rename it made', async () => {
    const ws = await addWorkspace(live.db, owner.userId, 'Before');
    const first = await send(
      'PATCH',
      routePath(API_ROUTES.renameWorkspace, { workspaceId: ws }),
      { name: 'After' },
      'rename-1',
    );
    expect(first.status).toBe(200);
    // Renamed by someone else in between: the repeat is the kept answer, and changes nothing again.
    await live.db.query('UPDATE expense_internal.workspaces SET name = $2 WHERE workspace_id = $1', [
      ws,
      'Later',
    ]);
    const again = await send(
      'PATCH',
      routePath(API_ROUTES.renameWorkspace, { workspaceId: ws }),
      { name: 'After' },
      'rename-1',
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.workspace.name).toBe('After');
    const { rows } = await live.db.query<{ name: string }>(
      'SELECT name FROM expense_internal.workspaces WHERE workspace_id = $1',
      [ws],
    );
    expect(rows[0]!.name).toBe('Later');
  });

  it('invites and mails once for a repeated POST members', async () => {
    const ws = await addWorkspace(live.db, owner.userId, 'Shared flat');
    const path = routePath(API_ROUTES.addMember, { workspaceId: ws });
    const first = await send('POST', path, { email: 'flatmate-key@example.test' }, 'invite-1');
    expect(first.status).toBe(201);
    await lastMailTo(outbox, 'flatmate-key@example.test');
    const mails = (await readdir(outbox)).length;
    const again = await send('POST', path, { email: 'flatmate-key@example.test' }, 'invite-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await readdir(outbox)).length).toBe(mails);
    const { rows } = await live.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM expense_internal.workspace_invitations WHERE workspace_id = $1',
      [ws],
    );
    expect(rows[0]!.n).toBe(1);
  });

  // A refusal that says "retry" is not the key's answer: once the invitation being written ends, the same request
  // with the same key invites (PostgreSQL: a second connection holds the workspace's invitation lock).
  it.runIf(engine.kind === 'postgres')(
    'gives the key back after a busy refusal: the retry runs',
    async () => {
      const ws = await addWorkspace(live.db, owner.userId, 'Busy flat');
      const holder = new pg.Client({ connectionString: live.databaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        const [space, key] = invitationLockKeys(ws, 'unused@example.test')[0]!;
        await holder.query('SELECT pg_advisory_xact_lock($1::int4, $2::int4)', [space, key]);
        const path = routePath(API_ROUTES.addMember, { workspaceId: ws });
        const busy = await send('POST', path, { email: 'retry-me@example.test' }, 'invite-busy');
        expect(busy.status).toBe(429);
        expect(busy.body.error.retryable).toBe(true);
        await holder.query('ROLLBACK');
        const retry = await send('POST', path, { email: 'retry-me@example.test' }, 'invite-busy');
        expect(retry.status).toBe(201);
        expect(retry.headers.get('idempotent-replayed')).toBeNull();
      } finally {
        await holder.end();
      }
    },
  );

  it('refuses a malformed key before writing anything', async () => {
    const before = await workspaceCount();
    const res = await send('POST', routePath(API_ROUTES.createWorkspace), { name: 'Bad key' }, 'é'.repeat(3));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(await workspaceCount()).toBe(before);
  });
});
