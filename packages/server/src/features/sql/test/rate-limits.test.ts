import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migratedPostgres, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../platform/storage/index.js';
import { addWorkspace, createUser, type Live, PGLITE, request, startLive, type TestUser } from './setup.js';

const QUERY = { sql: 'SELECT 1 AS one' };

describe('per-key rate limits in memory', () => {
  let live: Live;
  beforeAll(async () => {
    // A burst of 30 at once from one key: the in-flight limits (their own tests: platform/inflight/test) are
    // raised here so that only the rate limits decide. The budget that runs out is the daily one, whose window no
    // burst outlasts: the one-second window is tested on a clock the test moves (platform/ratelimit/test).
    live = await startLive(PGLITE, {
      ratePerSecond: 1000,
      ratePerDay: 10,
      maxInflightPerKey: 100,
      maxInflightPerUser: 100,
    });
  });
  afterAll(async () => live?.close());

  it('lets exactly 10 of a burst of 30 through, with Retry-After and the RateLimit fields on every answer', async () => {
    const user = await createUser(live.db);
    await addWorkspace(live.db, user.userId);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        live.request('POST', routePath(API_ROUTES.sqlQuery), { key: user.apiKey, body: QUERY }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect([ok.length, limited.length]).toEqual([10, 20]);
    for (const r of results) {
      expect(r.headers.get('ratelimit-policy')).toBe('"burst";q=1000;w=1, "daily";q=10;w=86400');
      expect(r.headers.get('ratelimit')).toMatch(/^"daily";r=\d+;t=\d+$/);
    }
    const remaining = ok
      .map((r) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]))
      .sort((a, b) => a - b);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const denied = limited[0]!;
    expect(denied.body.error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      details: { policy: 'daily' },
    });
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(3600);
    expect(denied.headers.get('ratelimit')).toMatch(/^"daily";r=0;t=\d+$/);
    // Another key has its own budget, and keyed routes other than SQL count too.
    const other = await createUser(live.db);
    const me = await live.request('GET', routePath(API_ROUTES.me), { key: other.apiKey });
    expect(me.status).toBe(200);
    expect(me.headers.get('ratelimit')).toMatch(/^"daily";r=9;t=\d+$/);
  });

  it('applies the daily quota', async () => {
    const daily = await startLive(PGLITE, { ratePerSecond: 1000, ratePerDay: 5 });
    try {
      const user = await createUser(daily.db);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push(
          (await daily.request('GET', routePath(API_ROUTES.workspaces), { key: user.apiKey })).status,
        );
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const denied = await daily.request('GET', routePath(API_ROUTES.keys), { key: user.apiKey });
      expect(denied.body.error.details.policy).toBe('daily');
      expect(denied.headers.get('ratelimit')).toMatch(/^"daily";r=0;t=\d+$/);
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(3600);
    } finally {
      await daily.close();
    }
  });
});

const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const BIN = join(serverDir, 'dist', 'bin.js');

function startProcess(env: Record<string, string>): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving (http:\/\/[^\s]+)\/v1/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, origin: match[1]! });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

describe('two server processes sharing Redis', () => {
  const prefix = `expense-test-${randomBytes(6).toString('hex')}`;
  const children: ChildProcess[] = [];
  let origins: string[] = [];
  let drop: () => Promise<void>;
  let user: TestUser;

  beforeAll(async () => {
    if (!existsSync(BIN))
      execFileSync('pnpm', ['--filter', '@expense/server...', 'build'], { stdio: 'ignore' });
    const target = await migratedPostgres();
    drop = target.drop;
    const env = {
      EXPENSE_PORT: '0',
      DATABASE_URL: target.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      EXPENSE_REDIS_KEY_PREFIX: prefix,
      // The shared budget is the daily one: a burst straddling two one-second windows of a loaded machine would
      // let more than the per-second limit through even when shared.
      EXPENSE_RATE_PER_SECOND: '1000',
      EXPENSE_RATE_PER_DAY: '10',
      EXPENSE_MAX_INFLIGHT_PER_KEY: '100',
      EXPENSE_MAX_INFLIGHT_PER_USER: '100',
      EXPENSE_LOG_LEVEL: 'warn',
    };
    const first = await startProcess(env); // applies the migrations
    const second = await startProcess(env);
    children.push(first.child, second.child);
    origins = [first.origin, second.origin];
    const db = await openDatabase({ databaseUrl: target.url, migrate: false });
    try {
      user = await createUser(db);
      await addWorkspace(db, user.userId);
    } finally {
      await db.close();
    }
  });

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await drop?.();
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('shares one budget: 10 of 30 requests spread over both processes get through', async () => {
    expect(origins[0]).not.toBe(origins[1]);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(origins[i % 2]!, 'POST', routePath(API_ROUTES.sqlQuery), { key: user.apiKey, body: QUERY }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      expect((await redis.keys(`${prefix}:daily*`)).length).toBeGreaterThan(0);
    } finally {
      await redis.quit();
    }
  });
});
