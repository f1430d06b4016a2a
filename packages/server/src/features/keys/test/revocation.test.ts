// A key revoked through one server process is refused at once by another that had it cached (PostgreSQL
// announces revocations on a channel every process listens to), also after that listening connection was lost.

import { type Client, call, migratedPostgres, removeDir, signIn, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';

/** Waiting for an event (a NOTIFY, a reconnect), not timing it: the 10 s bound is far below the 10-minute cache. */
const WAIT = { timeout: 10_000, interval: 50 };

const config = (outbox: string) => ({
  publicUrl: 'https://api.example.test',
  mailOutbox: outbox,
  logLevel: 'silent' as const,
});

describe('revoking a key in one process (PostgreSQL)', () => {
  let url: string;
  let drop: () => Promise<void>;
  let outbox: string;
  const dbs: Database[] = [];
  const apps: FastifyInstance[] = [];
  let one: Client;
  let other: Client;

  beforeAll(async () => {
    ({ url, drop } = await migratedPostgres());
    outbox = await tempDir();
    for (const ttlMs of [5_000, 600_000]) {
      const db = await openDatabase({ databaseUrl: url });
      dbs.push(db);
      // The second process would keep a verified key for ten minutes if nobody told it otherwise.
      apps.push(await createServer(config(outbox), { database: db, keyCache: { ttlMs } }));
    }
    one = injectClient(apps[0]!);
    other = injectClient(apps[1]!);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const db of dbs) await db.close();
    await drop?.();
    await removeDir(outbox);
  });

  // /v1/workspaces trusts the verified key (/v1/me reads the key's row again, so it would prove nothing here).
  const statusOf = async (c: Client, key: string) => (await call(c, API_ROUTES.workspaces, { key })).status;

  it('is refused by the other process at once, not when its cache entry expires', async () => {
    const keeper = await signIn(one, outbox, 'revoker@example.com', 'keeper');
    const doomed = await signIn(one, outbox, 'revoker@example.com', 'doomed');
    expect(await statusOf(other, doomed.apiKey)).toBe(200); // now in the other process's cache

    const revoked = await call(one, API_ROUTES.revokeKey, {
      params: { connectionId: doomed.connection.connectionId },
      key: keeper.apiKey,
    });
    expect(revoked.status).toBe(204);
    await vi.waitFor(async () => expect(await statusOf(other, doomed.apiKey)).toBe(401), WAIT);
    expect(await statusOf(other, keeper.apiKey)).toBe(200);
  });

  it('listens again after losing its connection, and forgets what it may have missed meanwhile', async () => {
    const keeper = await signIn(one, outbox, 'relisten@example.com', 'keeper');
    const doomed = await signIn(one, outbox, 'relisten@example.com', 'doomed');
    expect(await statusOf(other, doomed.apiKey)).toBe(200);

    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const listeners = async () =>
        (
          await admin.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'expense-server-listen'",
          )
        ).rows.map((r) => r.pid);
      const before = await listeners();
      expect(before).toHaveLength(2);
      // While nobody listens, the key is revoked behind the servers' backs (as an operator would, in SQL).
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'expense-server-listen'",
      );
      await admin.query('UPDATE expense_internal.api_keys SET revoked_at = now() WHERE connection_id = $1', [
        doomed.connection.connectionId,
      ]);
      await vi.waitFor(async () => {
        const now = await listeners();
        expect(now).toHaveLength(2);
        expect(now.filter((pid) => before.includes(pid))).toEqual([]);
      }, WAIT);
    } finally {
      await admin.end();
    }
    // Listening again, the other process dropped its cache: the revocation it never heard of holds.
    await vi.waitFor(async () => expect(await statusOf(other, doomed.apiKey)).toBe(401), WAIT);
    expect(await statusOf(other, keeper.apiKey)).toBe(200);
  });
});
