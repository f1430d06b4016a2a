// Two server processes on one PostgreSQL database, the second trusting cached keys for ten minutes: an OAuth
// access token replaced by a refresh, or ended with its grant (refresh-token reuse), is refused by the other
// process at once (migration 0019 announces both on the channel every process listens to).

import { call, type Client as InjectClient, migratedPostgres } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { addWorkspace, createUser } from '../../sql/test/setup.js';
import { consentInBrowser, consoleCookie, pkce, REDIRECT_URI, tokenRequest } from './helpers.js';

/** Waiting for a NOTIFY, not timing it: the bound is far below the ten-minute cache. */
const WAIT = { timeout: 10_000, interval: 50 };
const PUBLIC = 'https://api.example.test';

describe('OAuth tokens across processes (PostgreSQL)', () => {
  let drop: () => Promise<void>;
  const dbs: Database[] = [];
  const apps: FastifyInstance[] = [];
  let origin: string;
  let other: InjectClient;

  beforeAll(async () => {
    const fresh = await migratedPostgres();
    drop = fresh.drop;
    for (const ttlMs of [5_000, 600_000]) {
      const db = await openDatabase({ databaseUrl: fresh.url });
      dbs.push(db);
      apps.push(
        await createServer(
          { publicUrl: PUBLIC, logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000 },
          { database: db, keyCache: { ttlMs } },
        ),
      );
    }
    await apps[0]!.listen({ host: '127.0.0.1', port: 0 });
    const address = apps[0]!.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    other = injectClient(apps[1]!);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const db of dbs) await db.close();
    await drop?.();
  });

  const statusOn = async (key: string) =>
    (await call(other, API_ROUTES.workspaces, { headers: { authorization: `Bearer ${key}` } })).status;

  it('refuses a replaced access token, and every token of a revoked grant, in the other process at once', async () => {
    const db = dbs[0]!;
    const user = await createUser(db);
    await addWorkspace(db, user.userId);
    const cookie = await consoleCookie(db, user.userId, PUBLIC);
    const reg = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Two processes', redirect_uris: [REDIRECT_URI] }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const { verifier, challenge } = pkce();
    const url = `${origin}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${PUBLIC}/mcp`,
    })}`;
    const back = await consentInBrowser(origin, url, cookie, {}, PUBLIC);
    expect(back.searchParams.get('iss')).toBe(PUBLIC);
    const t1 = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(t1.status).toBe(200);
    expect(await statusOn(t1.body.access_token)).toBe(200); // now cached by the other process

    const t2 = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t1.body.refresh_token,
      client_id: clientId,
    });
    expect(t2.status).toBe(200);
    await vi.waitFor(async () => expect(await statusOn(t1.body.access_token)).toBe(401), WAIT);
    expect(await statusOn(t2.body.access_token)).toBe(200);

    const reuse = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t1.body.refresh_token,
      client_id: clientId,
    });
    expect(reuse.body.error).toBe('invalid_grant');
    await vi.waitFor(async () => expect(await statusOn(t2.body.access_token)).toBe(401), WAIT);
  });
});
