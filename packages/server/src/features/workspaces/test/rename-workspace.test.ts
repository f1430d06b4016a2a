// PATCH /v1/workspaces/{workspaceId} {name}: owners rename; members, strangers, bad names and read-only keys change
// nothing.
import { type Client, call, removeDir, routePath, signIn, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { createApiKey } from '../../auth/api-keys.js';

describe('renaming a workspace (PGlite)', () => {
  let outbox: string;
  let db: Database;
  let app: FastifyInstance;
  let client: Client;
  let owner: string;
  let member: string;
  let ownerId: string;
  let workspaceId: string;

  beforeAll(async () => {
    outbox = await tempDir();
    db = await openDatabase({ databaseUrl: 'memory://' });
    app = await createServer({ mailOutbox: outbox, logLevel: 'silent' }, { database: db });
    client = injectClient(app);
    const o = await signIn(client, outbox, 'owner@example.com');
    owner = o.apiKey;
    ownerId = o.user.userId;
    member = (await signIn(client, outbox, 'member@example.com')).apiKey;
    const ws = await call(client, API_ROUTES.createWorkspace, { key: owner, body: { name: 'Household' } });
    workspaceId = ws.body.data.workspace.workspaceId;
    await call(client, API_ROUTES.addMember, {
      params: { workspaceId },
      key: owner,
      body: { email: 'member@example.com' },
    });
    const accepted = await call(client, API_ROUTES.acceptInvitation, {
      params: { workspaceId },
      key: member,
    });
    expect(accepted.status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await removeDir(outbox);
  });

  const nameOf = async () => {
    const list = await call(client, API_ROUTES.workspaces, { key: owner });
    return (list.body.data.workspaces as { workspaceId: string; name: string }[]).find(
      (w) => w.workspaceId === workspaceId,
    )?.name;
  };
  // Sent as given, outside the route's body schema (call takes only bodies the schema allows).
  const rename = (key: string, name: unknown, id = workspaceId) =>
    client.request(
      API_ROUTES.renameWorkspace.method,
      routePath(API_ROUTES.renameWorkspace, { workspaceId: id }),
      {
        key,
        body: { name },
      },
    );

  it('lets an owner rename it', async () => {
    const res = await rename(owner, 'Our household');
    expect(res.status).toBe(200);
    expect(res.body.data.workspace).toEqual({ workspaceId, name: 'Our household', role: 'owner' });
    expect(await nameOf()).toBe('Our household');
  });

  it('refuses a member (403), a stranger or unknown id (404), a bad name (400), and changes nothing', async () => {
    const before = await nameOf();
    const byMember = await rename(member, 'Mine now');
    expect([byMember.status, byMember.body.error.code]).toEqual([403, 'forbidden']);
    const stranger = (await signIn(client, outbox, 'stranger@example.com')).apiKey;
    const byStranger = await rename(stranger, 'Mine now');
    expect([byStranger.status, byStranger.body.error.code]).toEqual([404, 'workspace_not_found']);
    const unknown = await rename(owner, 'Mine now', '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    for (const name of ['', 'x'.repeat(101), 42]) {
      const bad = await rename(owner, name);
      expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_workspace_name']);
    }
    const { apiKey: reader } = await createApiKey(db, ownerId, 'reader', { access: 'read' });
    const byReader = await rename(reader, 'Mine now');
    expect([byReader.status, byReader.body.error.code]).toEqual([403, 'forbidden']);
    expect(await nameOf()).toBe(before);
  });
});
