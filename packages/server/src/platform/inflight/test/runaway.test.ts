// A request's resources are held until the database has really stopped its statement. A statement that ignores
// its cancel (here a trigger that swallows query_canceled, as the planner ignores interrupts while folding a huge
// expression) is ended with pg_terminate_backend one second after the cancel, its pooled connection is dropped,
// and the request id is in the log; on PostgreSQL + Redis the user's in-flight leases are held (and renewed)
// until the connection is back in the pool, so one user never holds more connections than its limit. A server
// process that outlives even its termination keeps its request's in-flight place until it has ended (issue 35),
// within a bound after which its connection is closed from this side.
import { randomBytes, randomUUID } from 'node:crypto';
import { type EngineSpec, POSTGRES, pooledEngines, request, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, type TestUser, waitFor } from '../../../features/sql/test/setup.js';
import { createServer, type ServerConfigInput } from '../../../index.js';
import { type Database, type OpenDatabaseConfig, openDatabase } from '../../storage/index.js';
import { InflightLimiter } from '../index.js';
import {
  DEAF_INSERT,
  deafBackends,
  installDeaf,
  installStubborn,
  livingBackends,
  STUBBORN_INSERT,
  stubbornBackends,
  stubbornRounds,
} from './stubborn.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

interface Logged {
  msg: string;
  requestId?: string;
  terminatedPids?: number[];
  /** A terminated statement still running past the bound: its server processes. */
  pids?: number[];
}

interface Served {
  db: Database;
  origin: string;
  logged: Logged[];
  close(): Promise<void>;
}

/**
 * A server on a fresh database of the engine whose storage log lines are kept; the stubborn trigger installed (and
 * the deaf one, with `deafSeconds`).
 */
async function serve(
  engine: EngineSpec,
  config: ServerConfigInput,
  stubbornSeconds: number,
  { deafSeconds, ...storage }: Pick<OpenDatabaseConfig, 'abandonAfterMs'> & { deafSeconds?: number } = {},
): Promise<Served> {
  const target = await engine.open();
  const logged: Logged[] = [];
  const logger = {
    info: () => {},
    warn: (obj: object, msg?: string) => logged.push({ ...(obj as object), msg: msg ?? '' }),
  };
  const db = await openDatabase({ databaseUrl: target.url, directUrl: target.directUrl, logger, ...storage });
  const app = await createServer(
    { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000, ...config },
    { database: db, keyCache: { ttlMs: 600_000 } },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  await installStubborn(db, stubbornSeconds);
  if (deafSeconds !== undefined) await installDeaf(db, deafSeconds);
  return {
    db,
    origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    logged,
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await db.close();
      await target.drop();
    },
  };
}

async function userWithWorkspace(db: Database): Promise<TestUser> {
  const user = await createUser(db);
  await addWorkspace(db, user.userId);
  return user;
}

describe.each([POSTGRES, ...pooledEngines('the runaway-statement test through PgBouncer')])(
  'a statement that ignores its cancel, on $name',
  (engine) => {
    let served: Served;
    let user: TestUser;

    beforeAll(async () => {
      // The INSERT must reach the stubborn trigger before the deadline, or the cancel stops it as any statement (and
      // nothing is terminated): 1 s from the request's arrival was too little under a loaded test run (guard check,
      // lease, context), 3 s is not.
      served = await serve(engine, { sqlDeadlineMs: 3_000 }, 20);
      user = await userWithWorkspace(served.db);
      // A first request opens the pool's connections and verifies the dialect on them: on a loaded machine that
      // passed the 1 s deadline once, so the cancel came before the INSERT reached the trigger (nothing to end).
      const warm = await request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
        key: user.apiKey,
        body: { sql: 'SELECT 1 AS one' },
      });
      expect(warm.status).toBe(200);
    });
    afterAll(async () => served?.close());

    it('is ended with pg_terminate_backend after its cancel, its connection discarded and the request id logged', async () => {
      // Only a statement in the trigger's loop when its cancel comes ignores it. On a loaded run the deadline passed as the
      // INSERT arrived once in a while, and its cancel stopped it before the loop (a plain cancel then, nothing to
      // terminate): such a request is sent again, at most 3 times.
      let answer: Awaited<ReturnType<typeof request>> | undefined;
      for (let attempt = 0; attempt < 3; attempt++) {
        const before = await stubbornRounds(served.db);
        answer = await request(served.origin, 'POST', routePath(API_ROUTES.sqlExecute), {
          key: user.apiKey,
          body: { sql: STUBBORN_INSERT },
        });
        if ((await stubbornRounds(served.db)) > before) break;
        answer = undefined;
      }
      if (!answer)
        throw new Error(
          "the stubborn INSERT never reached its trigger's loop before its deadline, in 3 attempts",
        );
      expect(answer.status).toBe(504);
      expect(answer.body.error.code).toBe('deadline_exceeded');
      const requestId = answer.headers.get('x-request-id');
      expect(requestId).toMatch(/^req_/);
      const terminated = () => served.logged.find((l) => l.terminatedPids !== undefined);
      // Logged before the answer: the run awaits its cancel (and the termination) before it reports the deadline.
      expect(terminated(), JSON.stringify(served.logged)).toMatchObject({ requestId });
      const line = terminated();
      expect(line?.terminatedPids?.length).toBe(1);
      // The server process is gone (not back in the pool, still running or idle).
      await expect
        .poll(
          async () =>
            (
              await served.db.query('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1)', [
                line?.terminatedPids,
              ])
            ).rowCount,
        )
        .toBe(0);
      expect(await stubbornBackends(served.db)).toEqual([]);
      // The pool serves the next request on a healthy connection.
      const next = await request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
        key: user.apiKey,
        body: { sql: 'SELECT 1 AS one' },
      });
      expect(next.status).toBe(200);
    });
  },
);

describe('in-flight leases on PostgreSQL + Redis', () => {
  const prefix = `expense-test-${randomBytes(6).toString('hex')}`;
  let served: Served;
  let attacker: TestUser;
  let keys: string[];

  beforeAll(async () => {
    served = await serve(
      POSTGRES,
      { sqlDeadlineMs: 1_000, redisUrl: REDIS_URL, redisKeyPrefix: prefix },
      // Longer than the deadline plus the 5 s a lease used to outlive it.
      9,
    );
    attacker = await userWithWorkspace(served.db);
    const more = await served.db.transaction(async (tx) => {
      const { createApiKey } = await import('../../../features/auth/api-keys.js');
      return [
        (await createApiKey(tx, attacker.userId, 'two')).apiKey,
        (await createApiKey(tx, attacker.userId, 'three')).apiKey,
      ];
    });
    keys = [attacker.apiKey, ...more];
  });
  afterAll(async () => {
    await served?.close();
    const redis = new Redis(REDIS_URL);
    const found = await redis.keys(`${prefix}:*`);
    if (found.length > 0) await redis.del(...found);
    await redis.quit();
  });

  it('keeps counting a lease while its holder lives, however long past its time to live', async () => {
    const limiter = new InflightLimiter({
      perKey: 1,
      perUser: 4,
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      leaseTtlMs: 300,
    });
    try {
      const subject = { userId: randomUUID(), connectionId: randomUUID() };
      const lease = await limiter.admit(subject);
      await waitFor(1_500); // five times its time to live
      await expect(limiter.admit(subject)).rejects.toMatchObject({ code: 'too_many_concurrent_requests' });
      await lease.release();
      const again = await limiter.admit(subject);
      await again.release();
    } finally {
      await limiter.close();
    }
  });

  it('never lets one user run more stubborn statements at once than its in-flight limit (4)', async () => {
    let most = 0;
    let sending = true;
    const watch = (async () => {
      while (sending) {
        most = Math.max(most, (await stubbornBackends(served.db)).length);
        await waitFor(100);
      }
    })();
    // Three keys send back to back for 10 s: a refused request is sent again at once.
    const until = Date.now() + 10_000;
    const statuses: number[] = [];
    await Promise.all(
      keys.flatMap((key) =>
        [0, 1].map(async () => {
          while (Date.now() < until) {
            const answer = await request(served.origin, 'POST', routePath(API_ROUTES.sqlExecute), {
              key,
              body: { sql: STUBBORN_INSERT },
            });
            statuses.push(answer.status);
            if (answer.status === 429) await waitFor(50);
          }
        }),
      ),
    );
    sending = false;
    await watch;
    expect(statuses).toContain(504);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(4);
    // Another user still gets a connection at once.
    const bystander = await userWithWorkspace(served.db);
    const answer = await request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: bystander.apiKey,
      body: { sql: 'SELECT 1 AS one' },
    });
    expect(answer.status).toBe(200);
  });
});

/** Waits (30 s at most) until no deaf statement runs any more: its database can then be dropped. */
async function deafGone(served: Served | undefined): Promise<void> {
  const until = Date.now() + 30_000;
  while (served && Date.now() < until && (await deafBackends(served.db)).length > 0) await waitFor(250);
}

describe.each([
  { counted: 'in this process', redis: false },
  { counted: 'in Redis', redis: true },
])('a server process that outlives its termination on PostgreSQL, places counted $counted', ({ redis }) => {
  const prefix = `expense-test-${randomBytes(6).toString('hex')}`;
  let served: Served;
  let user: TestUser;
  let second: string;

  beforeAll(async () => {
    served = await serve(
      POSTGRES,
      { sqlDeadlineMs: 3_000, ...(redis ? { redisUrl: REDIS_URL, redisKeyPrefix: prefix } : {}) },
      20,
      // Long enough to be seen alive well after its termination (deadline 3 s, termination 1 s later).
      { deafSeconds: 12 },
    );
    user = await userWithWorkspace(served.db);
    // Saves the first workspace for the key; the second takes the other deaf write (writes to one workspace queue
    // behind each other's history lock, where a cancel stops them).
    const warm = await request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS one' },
    });
    expect(warm.status).toBe(200);
    second = await addWorkspace(served.db, user.userId, 'Second');
  });
  afterAll(async () => {
    await deafGone(served);
    await served?.close();
    if (redis) {
      const client = new Redis(REDIS_URL);
      const found = await client.keys(`${prefix}:*`);
      if (found.length > 0) await client.del(...found);
      await client.quit();
    }
  });

  it("keeps the request's in-flight place until its server process has ended: the key's third request is refused meanwhile, and served after", async () => {
    const deaf = (headers: Record<string, string> = {}) =>
      request(served.origin, 'POST', routePath(API_ROUTES.sqlExecute), {
        key: user.apiKey,
        body: { sql: DEAF_INSERT },
        headers,
      });
    const one = () =>
      request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
        key: user.apiKey,
        body: { sql: 'SELECT 1 AS one' },
      });
    // The key's two places (EXPENSE_MAX_INFLIGHT_PER_KEY).
    const held = [deaf(), deaf({ 'X-Workspace-Id': second })];
    // Both ran past their deadline, ignored their cancel and were terminated; their server processes live on.
    const terminations = () => served.logged.filter((l) => l.terminatedPids !== undefined);
    await expect.poll(() => terminations().length, { timeout: 30_000, interval: 100 }).toBe(2);
    const pids = terminations().flatMap((l) => l.terminatedPids ?? []);
    expect(pids).toHaveLength(2);
    expect(await livingBackends(served.db, pids)).toHaveLength(2);

    const third = await one();
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({
      code: 'too_many_concurrent_requests',
      details: { scope: 'key', limit: 2 },
    });
    // Refused while both server processes still ran.
    expect(await livingBackends(served.db, pids)).toHaveLength(2);

    const answers = await Promise.all(held);
    for (const answer of answers) {
      expect(answer.status).toBe(504);
      expect(answer.body.error.code).toBe('deadline_exceeded');
    }
    // Answered, and the places given back, once the server processes had ended (pg_stat_activity may still list a
    // process for a moment after its connection closed: polled briefly).
    await expect.poll(() => livingBackends(served.db, pids), { timeout: 5_000, interval: 100 }).toEqual([]);
    const after = await Promise.all([one(), one()]);
    expect(after.map((a) => a.status)).toEqual([200, 200]);
  });
});

describe('a server process that outlives its termination past the bound, on PostgreSQL', () => {
  let served: Served;
  let user: TestUser;

  beforeAll(async () => {
    served = await serve(POSTGRES, { sqlDeadlineMs: 3_000 }, 20, { deafSeconds: 15, abandonAfterMs: 1_000 });
    user = await userWithWorkspace(served.db);
    const warm = await request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS one' },
    });
    expect(warm.status).toBe(200);
  });
  afterAll(async () => {
    await deafGone(served);
    await served?.close();
  });

  it('has its connection closed from this side: the request answers, logged, and its place is free while the process still runs', async () => {
    const answer = await request(served.origin, 'POST', routePath(API_ROUTES.sqlExecute), {
      key: user.apiKey,
      body: { sql: DEAF_INSERT },
    });
    expect(answer.status).toBe(504);
    expect(answer.body.error.code).toBe('deadline_exceeded');
    const line = served.logged.find((l) => /a terminated statement still ran/.test(l.msg));
    expect(line, JSON.stringify(served.logged)).toMatchObject({
      requestId: answer.headers.get('x-request-id'),
      pids: [expect.any(Number)],
    });
    // The bound answered, not the process's end: it still runs, and the key's two places are free.
    expect(await livingBackends(served.db, line?.pids ?? [])).toHaveLength(1);
    const both = await Promise.all(
      [0, 1].map(() =>
        request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
          key: user.apiKey,
          body: { sql: 'SELECT 1 AS one' },
        }),
      ),
    );
    expect(both.map((a) => a.status)).toEqual([200, 200]);
  });
});
