// Internal work never waits behind user SQL (PostgreSQL): with every connection of the user-SQL pool held by
// a slow statement, key checks, /v1/me, /v1/workspaces and sign-in still answer, from their own pool. The
// statements are kept slow by a lock the test holds (no timing involved), and end when it lets go; the
// deadline only bounds the test if something goes wrong.

import {
  type FreshPostgres,
  migratedPostgres,
  removeDir,
  routePath,
  signIn,
  socketClient,
  tempDir,
} from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addWorkspace, createUser, request, type TestUser } from '../../../../features/sql/test/setup.js';
import { createServer } from '../../../../index.js';
import { type Database, openDatabase } from '../../index.js';

const USER_POOL = 10; // the default databasePoolSize

describe('internal work beside a full user-SQL pool on PostgreSQL', () => {
  let target: FreshPostgres;
  let app: FastifyInstance;
  let origin: string;
  let outbox: string;
  let db: Database;
  let admin: pg.Client;
  let monitor: pg.Client;
  const slowUsers: TestUser[] = [];
  let bystander: TestUser;

  beforeAll(async () => {
    target = await migratedPostgres();
    outbox = await tempDir();
    app = await createServer({
      databaseUrl: target.url,
      mailOutbox: outbox,
      logLevel: 'silent',
      ratePerSecond: 100_000,
      ratePerDay: 1_000_000,
      sqlDeadlineMs: 30_000,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    db = await openDatabase({ databaseUrl: target.url, migrate: false, maxConnections: 1 });
    for (let i = 0; i < USER_POOL; i++) {
      const user = await createUser(db, `slow-${i}`);
      await addWorkspace(db, user.userId);
      slowUsers.push(user);
    }
    bystander = await createUser(db, 'bystander');
    await addWorkspace(db, bystander.userId);
    admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    // Its own connection: inside the locking transaction pg_stat_activity would stay one snapshot.
    monitor = new pg.Client({ connectionString: target.url });
    await monitor.connect();
  }, 120_000);

  afterAll(async () => {
    await admin?.query('ROLLBACK').catch(() => undefined);
    await admin?.end();
    await monitor?.end();
    await app?.close();
    await db?.close();
    await target?.drop();
    await removeDir(outbox);
  });

  it('answers /v1/me, /v1/workspaces and sign-in while slow statements hold every user-SQL connection', async () => {
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE public.ledger_entries IN ACCESS EXCLUSIVE MODE');
    const settled: boolean[] = [];
    const slow = slowUsers.map((user, i) =>
      request(origin, 'POST', routePath(API_ROUTES.sqlQuery), {
        key: user.apiKey,
        body: { sql: 'SELECT count(*) AS n FROM ledger_entries' },
      }).finally(() => {
        settled[i] = true;
      }),
    );
    try {
      // Every user-SQL connection is taken: each slow statement waits for the lock.
      await vi.waitFor(
        async () => {
          const { rows } = await monitor.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          expect(Number(rows[0]?.n)).toBe(USER_POOL);
        },
        { timeout: 20_000, interval: 100 },
      );

      const me = await request(origin, 'GET', routePath(API_ROUTES.me), { key: bystander.apiKey });
      expect(me.status).toBe(200);
      expect(me.body.data.user.userId).toBe(bystander.userId);
      const workspaces = await request(origin, 'GET', routePath(API_ROUTES.workspaces), {
        key: bystander.apiKey,
      });
      expect(workspaces.status).toBe(200);
      const signedIn = await signIn(socketClient(origin), outbox, 'newcomer@example.test');
      const mine = await request(origin, 'GET', routePath(API_ROUTES.me), { key: signedIn.apiKey });
      expect(mine.status).toBe(200);

      // All of that answered while the slow statements were still waiting.
      expect(settled.filter(Boolean)).toHaveLength(0);
    } finally {
      await admin.query('COMMIT');
    }
    const answers = await Promise.all(slow);
    expect(answers.map((answer) => answer.status)).toEqual(slowUsers.map(() => 200));
  }, 120_000);
});
