// Two server processes behind PgBouncer in transaction mode: a key revoked through one is refused by the other
// at once. The announcement needs LISTEN on a session of its own, which DATABASE_DIRECT_URL provides (through
// the pooler, a LISTEN would land on whichever server session served that one transaction).

import {
  type Client,
  pooledPostgres,
  poolerAvailable,
  removeDir,
  routePath,
  signIn,
  tempDir,
} from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '../../../../index.js';
import { injectClient } from '../../../http/test/helpers.js';

const WAIT = { timeout: 10_000, interval: 50 };

describe.runIf(poolerAvailable('the revocation test through PgBouncer'))(
  'revoking a key in one process behind PgBouncer',
  () => {
    let target: Awaited<ReturnType<typeof pooledPostgres>>;
    let outbox: string;
    const apps: FastifyInstance[] = [];
    let one: Client;
    let other: Client;

    beforeAll(async () => {
      target = await pooledPostgres();
      outbox = await tempDir();
      for (const ttlMs of [5_000, 600_000]) {
        const config = {
          databaseUrl: target.url,
          databaseDirectUrl: target.directUrl,
          publicUrl: 'https://api.example.test',
          mailOutbox: outbox,
          logLevel: 'silent' as const,
        };
        apps.push(await createServer(config, { keyCache: { ttlMs } }));
      }
      one = injectClient(apps[0]!);
      other = injectClient(apps[1]!);
    }, 60_000);
    afterAll(async () => {
      for (const app of apps) await app.close();
      await target?.drop();
      await removeDir(outbox);
    });

    it('is refused by the other process at once, not when its cache entry expires', async () => {
      const statusOf = async (c: Client, key: string) =>
        (await c.request('GET', routePath(API_ROUTES.workspaces), { key })).status;
      const keeper = await signIn(one, outbox, 'pooled-revoker@example.com', 'keeper');
      const doomed = await signIn(one, outbox, 'pooled-revoker@example.com', 'doomed');
      expect(await statusOf(other, doomed.apiKey)).toBe(200); // now in the other process's cache

      const revoked = await one.request(
        'DELETE',
        routePath(API_ROUTES.revokeKey, { connectionId: doomed.connection.connectionId }),
        {
          key: keeper.apiKey,
        },
      );
      expect(revoked.status).toBe(204);
      await vi.waitFor(async () => expect(await statusOf(other, doomed.apiKey)).toBe(401), WAIT);
      expect(await statusOf(other, keeper.apiKey)).toBe(200);
    });
  },
);
