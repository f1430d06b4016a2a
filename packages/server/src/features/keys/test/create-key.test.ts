// POST /v1/keys {label}: a new agent key for the caller, shown once; only a key with its user's whole reach may
// mint one (an OAuth token, a read-only or a workspace-bound key would otherwise widen itself).

import { type Client, call, migratedPostgres, removeDir, signIn, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { createApiKey } from '../../auth/api-keys.js';
import { KEY_CAPS } from '../../auth/key-caps.js';

describe('POST /v1/keys', () => {
  let drop: () => Promise<void>;
  let outbox: string;
  let db: Database;
  let app: FastifyInstance;
  let client: Client;

  beforeAll(async () => {
    const fresh = await migratedPostgres();
    drop = fresh.drop;
    outbox = await tempDir();
    db = await openDatabase({ databaseUrl: fresh.url });
    app = await createServer(
      // The per-second limit is raised so that only the key caps decide the bursts below.
      { publicUrl: 'https://api.example.test', mailOutbox: outbox, logLevel: 'silent', ratePerSecond: 1000 },
      { database: db },
    );
    client = injectClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await drop?.();
    await removeDir(outbox);
  });

  it('creates an agent key shown once, listed without its secret, revocable', async () => {
    const { apiKey } = await signIn(client, outbox, 'keys@example.com');
    const created = await call(client, API_ROUTES.createKey, {
      key: apiKey,
      body: { label: ' build agent ' },
    });
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data.apiKey).toMatch(/^exp_live_/);
    expect(data.connection).toMatchObject({ label: 'build agent', kind: 'agent' });
    expect((await call(client, API_ROUTES.me, { key: data.apiKey })).status).toBe(200);
    const list = await call(client, API_ROUTES.keys, { key: apiKey });
    expect(list.body.data.keys.map((k: { label: string }) => k.label)).toEqual(['laptop', 'build agent']);
    expect(JSON.stringify(list.body)).not.toContain(data.apiKey);
    const { rows } = await db.query<{ kind: string; expires_at: Date | null }>(
      'SELECT kind, expires_at FROM expense_internal.api_keys WHERE connection_id = $1',
      [data.connection.connectionId],
    );
    expect(rows[0]).toEqual({ kind: 'agent', expires_at: null });
    const revoked = await call(client, API_ROUTES.revokeKey, {
      params: { connectionId: data.connection.connectionId },
      key: apiKey,
    });
    expect(revoked.status).toBe(204);
    expect((await call(client, API_ROUTES.me, { key: data.apiKey })).status).toBe(401);
  });

  it('refuses a blank label with invalid_label', async () => {
    const { apiKey } = await signIn(client, outbox, 'blank@example.com');
    const res = await call(client, API_ROUTES.createKey, { key: apiKey, body: { label: '   ' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_label');
  });

  it('refuses OAuth, read-only and workspace-bound keys', async () => {
    const { user } = await signIn(client, outbox, 'narrow@example.com');
    const ws = await call(client, API_ROUTES.createWorkspace, {
      key: (await signIn(client, outbox, 'narrow@example.com', 'owner')).apiKey,
      body: { name: 'Narrow' },
    });
    const narrow = [
      { kind: 'oauth' as const },
      { kind: 'agent' as const, access: 'read' as const },
      { kind: 'agent' as const, workspaceId: ws.body.data.workspace.workspaceId as string },
    ];
    // An OAuth token is a key of its grant, issued for this server's /mcp.
    await db.query(
      `INSERT INTO expense_internal.oauth_clients (client_id, client_name, redirect_uris)
       VALUES ('narrow-client', 'Narrow client', '["http://127.0.0.1/cb"]')`,
    );
    const grant = await db.query<{ grant_id: string }>(
      `INSERT INTO expense_internal.oauth_grants (client_id, user_id, resource, access, expires_at)
       VALUES ('narrow-client', $1, 'https://api.example.test/mcp', 'read_write', now() + interval '1 day')
       RETURNING grant_id`,
      [user.userId],
    );
    for (const options of narrow) {
      const { apiKey, connectionId } = await createApiKey(db, user.userId, 'narrow', options);
      if (options.kind === 'oauth') {
        await db.query('UPDATE expense_internal.api_keys SET oauth_grant_id = $1 WHERE connection_id = $2', [
          grant.rows[0]!.grant_id,
          connectionId,
        ]);
      }
      const res = await call(client, API_ROUTES.createKey, { key: apiKey, body: { label: 'wider' } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      // A read-only key is stopped by its consent before the route (read-only hint); the others by the route.
      expect(res.body.error.hint).toMatch(options.access === 'read' ? /read-write/ : /console/);
    }
    const { rows } = await db.query('SELECT 1 FROM expense_internal.api_keys WHERE label = $1', ['wider']);
    expect(rows).toEqual([]);
  });

  const liveKeys = async (userId: string) =>
    (
      await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM expense_internal.api_keys WHERE user_id = $1 AND revoked_at IS NULL',
        [userId],
      )
    ).rows[0]!.n;

  it('caps keys minted per hour: one key cannot turn itself into a thousand keys with their own limits', async () => {
    const { apiKey, user } = await signIn(client, outbox, 'minter@example.com');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(client, API_ROUTES.createKey, { key: apiKey, body: { label: `minted ${i}` } }),
      ),
    );
    // The key from sign-in, created this hour too, takes one of the places.
    const minted = KEY_CAPS.createdPerHour - 1;
    expect(answers.filter((a) => a.status === 201)).toHaveLength(minted);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(30 - minted);
    expect(refused[0]!.body.error).toMatchObject({
      code: 'rate_limited',
      details: { policy: 'new-keys-per-user-hour', limit: KEY_CAPS.createdPerHour },
    });
    expect(refused[0]!.body.error.hint).toContain('DELETE /v1/keys');
    expect(refused[0]!.headers['retry-after']).toBe('3600');
    expect(await liveKeys(user.userId)).toBe(1 + minted);
  });

  it('caps live keys per user', async () => {
    const { apiKey, user } = await signIn(client, outbox, 'hoarder@example.com');
    for (let i = 1; i < KEY_CAPS.livePerUser; i++)
      await createApiKey(db, user.userId, `old ${i}`, { kind: 'cli' });
    const res = await call(client, API_ROUTES.createKey, { key: apiKey, body: { label: 'one more' } });
    expect(res.status).toBe(429);
    expect(res.body.error.details).toMatchObject({
      policy: 'live-keys-per-user',
      count: KEY_CAPS.livePerUser,
    });
    expect(await liveKeys(user.userId)).toBe(KEY_CAPS.livePerUser);
  });
});
