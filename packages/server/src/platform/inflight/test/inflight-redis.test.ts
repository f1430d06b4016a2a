// In-flight limits shared through Redis by several server processes, with leases that expire when the
// process holding them dies.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migratedPostgres, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../../features/sql/test/setup.js';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../storage/index.js';
import { InflightLimiter } from '../index.js';
import { ENDLESS, type Tenant, tenant } from './helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const here = dirname(fileURLToPath(import.meta.url));

async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

describe('in-flight limits shared through Redis', () => {
  const prefix = `expense-test-${randomBytes(6).toString('hex')}`;
  let db: Database;
  let drop: () => Promise<void>;
  const apps: Awaited<ReturnType<typeof createServer>>[] = [];
  const origins: string[] = [];
  let attacker: Tenant;

  beforeAll(async () => {
    const target = await migratedPostgres();
    drop = target.drop;
    db = await openDatabase({ databaseUrl: target.url });
    // Two servers (as two processes would be), one database, one Redis.
    for (let i = 0; i < 2; i++) {
      const app = await createServer(
        {
          logLevel: 'silent',
          ratePerSecond: 100_000,
          ratePerDay: 1_000_000,
          sqlDeadlineMs: 3_000,
          redisUrl: REDIS_URL,
          redisKeyPrefix: prefix,
        },
        { database: db, keyCache: { ttlMs: 600_000 } },
      );
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      apps.push(app);
      origins.push(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }
    const live = {
      db,
      origin: origins[0] as string,
      request: (method: string, path: string, options?: Parameters<typeof request>[3]) =>
        request(origins[0] as string, method, path, options),
    };
    attacker = await tenant(live as never, 3);
    for (const key of attacker.keys)
      await request(origins[1] as string, 'GET', routePath(API_ROUTES.me), { key });
  });

  afterAll(async () => {
    for (const app of apps) {
      app.server.closeAllConnections();
      await app.close();
    }
    await db?.close();
    await drop?.();
    await dropKeys(prefix);
  });

  it('counts one user over both servers: 4 of 12 slow statements run, 8 are refused', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(origins[i % 2] as string, 'POST', routePath(API_ROUTES.sqlQuery), {
          key: attacker.keys[i % 3] as string,
          body: { sql: ENDLESS },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 504)).toHaveLength(4);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(8);
    for (const r of refused) expect(r.body.error.code).toBe('too_many_concurrent_requests');
    // Every lease was given back: the user's sets are empty.
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}:inflight:*`);
      for (const key of keys) expect(await redis.zcard(key)).toBe(0);
    } finally {
      await redis.quit();
    }
  });

  it('forgets the leases of a process that died holding them, once their time to live passed without renewal', async () => {
    const userId = randomUUID();
    const connectionId = randomUUID();
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--conditions=@expense/source',
        '--import',
        'tsx',
        join(here, 'lease-holder.ts'),
        prefix,
        userId,
        connectionId,
        '2',
        '3000',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('held')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`lease holder exited with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const limiter = new InflightLimiter({
      perKey: 2,
      perUser: 4,
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
    });
    try {
      // The dead process's two leases still count: the key is full.
      await expect(limiter.admit({ userId, connectionId })).rejects.toMatchObject({
        code: 'too_many_concurrent_requests',
        options: { details: { scope: 'key', limit: 2 } },
      });
      // Another key of the same user still has room (the user has 2 of 4).
      const other = await limiter.admit({ userId, connectionId: randomUUID() });
      await other.release();
      // Once the leases expire, the key is free again.
      await expect
        .poll(
          async () => {
            try {
              const lease = await limiter.admit({ userId, connectionId });
              await lease.release();
              return 'admitted';
            } catch (error) {
              return (error as { code?: string }).code;
            }
          },
          { timeout: 30_000, interval: 250 },
        )
        .toBe('admitted');
    } finally {
      await limiter.close();
    }
  });
});
