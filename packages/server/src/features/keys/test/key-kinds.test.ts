// Keys carry a kind, an access level, an optional workspace and an optional lifetime (migration 0018). A key
// past its lifetime is refused like a revoked one, also when this process had it cached for longer.

import {
  type Client,
  call,
  codeOf,
  lastMailTo,
  migratedPostgres,
  removeDir,
  signIn,
  tempDir,
} from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { createApiKey } from '../../auth/api-keys.js';

describe('key lifetimes (PostgreSQL)', () => {
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
    // A ten-minute cache: only the key's own lifetime can end its entry during this test.
    app = await createServer(
      { publicUrl: 'https://api.example.test', mailOutbox: outbox, logLevel: 'silent' },
      { database: db, keyCache: { ttlMs: 600_000 } },
    );
    client = injectClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await drop?.();
    await removeDir(outbox);
  });

  const statusOf = async (key: string) => (await call(client, API_ROUTES.workspaces, { key })).status;

  it('refuses a key whose lifetime has passed', async () => {
    const { user } = await signIn(client, outbox, 'expired@example.com');
    const { apiKey } = await createApiKey(db, user.userId, 'short', {
      kind: 'console',
      expiresAt: new Date(Date.now() - 1_000),
    });
    const body = await call(client, API_ROUTES.workspaces, { key: apiKey });
    expect(body.status).toBe(401);
    expect(body.body.error.code).toBe('invalid_api_key');
  });

  it('trusts a cached key no longer than its lifetime', async () => {
    const { user } = await signIn(client, outbox, 'cached@example.com');
    const { apiKey } = await createApiKey(db, user.userId, 'brief', {
      kind: 'console',
      expiresAt: new Date(Date.now() + 1_500),
    });
    expect(await statusOf(apiKey)).toBe(200);
    await vi.waitFor(async () => expect(await statusOf(apiKey)).toBe(401), {
      timeout: 10_000,
      interval: 100,
    });
  });

  it('stores kind, access and workspace', async () => {
    const { user } = await signIn(client, outbox, 'kinds@example.com');
    const { connectionId } = await createApiKey(db, user.userId, 'reader', { kind: 'oauth', access: 'read' });
    const { rows } = await db.query<{ kind: string; access: string; workspace_id: string | null }>(
      'SELECT kind, access, workspace_id FROM expense_internal.api_keys WHERE connection_id = $1',
      [connectionId],
    );
    expect(rows[0]).toEqual({ kind: 'oauth', access: 'read', workspace_id: null });
    const signedIn = await db.query<{ kind: string }>(
      `SELECT kind FROM expense_internal.api_keys k JOIN expense_internal.users u USING (user_id)
        WHERE u.email = 'kinds@example.com' AND k.label = 'laptop'`,
    );
    expect(signedIn.rows[0]?.kind).toBe('agent');
  });

  it('lists a key from `expense login` as kind cli, and one from an agent as kind agent', async () => {
    const email = 'cli-kind@example.com';
    const sent = await client.request('POST', '/api/agent/send-code', { body: { email } });
    const code = codeOf(await lastMailTo(outbox, email));
    const verified = await client.request('POST', '/api/agent/verify-code', {
      body: { code, otpSessionToken: sent.body.data.otpSessionToken, label: 'terminal', kind: 'cli' },
    });
    expect(verified.status).toBe(200);
    await signIn(client, outbox, email, 'assistant');
    const keys = await call(client, API_ROUTES.keys, { key: verified.body.data.apiKey });
    const kinds = Object.fromEntries(
      (keys.body.data.keys as { label: string; kind: string }[]).map((k) => [k.label, k.kind]),
    );
    expect(kinds).toEqual({ terminal: 'cli', assistant: 'agent' });
  });
});
