// Shared pieces of the fairness tests: users with several keys, slow statements, and answers in the order
// they arrived at the client.
import { randomBytes } from 'node:crypto';
import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { createApiKey } from '../../../features/auth/api-keys.js';
import {
  addWorkspace,
  createUser,
  type EngineSpec,
  type Live,
  type Response,
  seedEntries,
  startLive,
  type TestUser,
} from '../../../features/sql/test/setup.js';
import type { ServerConfigInput } from '../../../index.js';
import type { Database } from '../../storage/index.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Waits until a slow statement runs on the embedded engine's one connection (`executing`) and `waiting` more
 * user transactions wait for their turn, instead of pausing. PostgreSQL runs them side by side: nothing to wait for.
 */
export async function untilRunning(db: Database, state: { waiting?: number } = {}): Promise<void> {
  const turns = db.turns?.bind(db);
  if (!turns) return;
  await expect
    .poll(
      () => {
        const now = turns();
        return now.executing === 1 && now.waiting === (state.waiting ?? 0);
      },
      { timeout: 60_000, interval: 10 },
    )
    .toBe(true);
}

/**
 * A server on a fresh database of the engine (like startLive), whose verified keys stay cached for the whole
 * test: a key check then never waits for the database, so what is measured is the SQL requests alone.
 */
export async function startFair(engine: EngineSpec, config: ServerConfigInput = {}): Promise<Live> {
  const live = await startLive(engine, config, { keyCache: { ttlMs: 600_000 } });
  return {
    ...live,
    async close() {
      live.app.server.closeAllConnections(); // sockets of requests whose clients went away
      await live.close();
    },
  };
}

/**
 * Never finishes within a test deadline: 100 rows, five ways (10^10 combinations). Four ways (10^8) could finish
 * within an 8 s deadline on PostgreSQL on a quiet machine.
 */
export const ENDLESS =
  'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d, ledger_entries e';
/** Finishes, slowly (about a second on the embedded engine): 100 rows, three ways, with a condition. */
export const SLOW =
  'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c WHERE a.amount + b.amount < c.amount * 3';

/** The category of the row SLOW_WRITE writes first. */
export const SLOW_WRITE_MARK = 'slow-write';
/**
 * A write that never finishes within a test deadline: a script that inserts one row (category SLOW_WRITE_MARK),
 * then looks for rows to copy in 100 rows five ways (10^10 combinations) and finds none. Its first row is there
 * only if it committed.
 */
export const SLOW_WRITE = [
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-02 00:00:00+00', 'checking', 1, 'EUR', 'spend', '${SLOW_WRITE_MARK}')`,
  'INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) SELECT a.ts, a.account_id, a.amount, a.currency, a.kind, a.category FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d, ledger_entries e WHERE a.amount + b.amount + c.amount + d.amount + e.amount < -1000000000',
].join(';\n');

/** Writes 200 rows: over the affected-row cap, so it is refused and rolled back. */
export const OVER_CAP =
  'INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) SELECT a.ts, a.account_id, a.amount, a.currency, a.kind, a.category FROM ledger_entries a, ledger_entries b WHERE b.amount <= 2';

export interface Tenant {
  user: TestUser;
  keys: string[];
}

/** A user with `keys` ApiKeys and a workspace of 100 ledger rows. */
export async function tenant(live: Live, keys = 1): Promise<Tenant> {
  const user = await createUser(live.db);
  await addWorkspace(live.db, user.userId);
  const more = await extraKeys(live.db, user.userId, keys - 1);
  await seedEntries(live, user.apiKey, 100);
  const all = [user.apiKey, ...more];
  // Verified keys are cached: a key check during the test then waits for no database.
  for (const key of all) await live.request('GET', routePath(API_ROUTES.me), { key });
  return { user, keys: all };
}

async function extraKeys(db: Database, userId: string, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(await db.transaction(async (tx) => (await createApiKey(tx, userId, `key ${i + 2}`)).apiKey));
  }
  return keys;
}

/** A response and its place among the answers of one test (0 = answered first). */
export interface Answered extends Response {
  order: number;
}

/** Numbers answers in the order they reach the client. */
export function answerCounter(): (pending: Promise<Response>) => Promise<Answered> {
  let next = 0;
  return async (pending) => {
    const response = await pending;
    return { ...response, order: next++ };
  };
}

export const query = (live: Live, key: string, sql: string, headers?: Record<string, string>) =>
  live.request('POST', routePath(API_ROUTES.sqlQuery), {
    key,
    body: { sql },
    ...(headers ? { headers } : {}),
  });

/**
 * In-flight places counted in Redis under a prefix of the test's own, so that a test can wait for a state
 * (requests admitted and holding their places) instead of for a time: the lease sets of redis.ts.
 */
export class LeaseProbe {
  readonly prefix = `expense-test-${randomBytes(6).toString('hex')}`;
  readonly #redis = new Redis(REDIS_URL);

  /** The server's settings that count in Redis under this probe's prefix. */
  get config(): { redisUrl: string; redisKeyPrefix: string } {
    return { redisUrl: REDIS_URL, redisKeyPrefix: this.prefix };
  }

  /** Places the user holds now (a released lease leaves its set at once). */
  async heldBy(userId: string): Promise<number> {
    return this.#redis.zcard(`${this.prefix}:inflight:{${userId}}:user`);
  }

  /** Resolves once the user holds `n` places. */
  async until(userId: string, n: number): Promise<void> {
    await expect.poll(() => this.heldBy(userId), { timeout: 30_000, interval: 20 }).toBe(n);
  }

  async close(): Promise<void> {
    const keys = await this.#redis.keys(`${this.prefix}:*`);
    if (keys.length > 0) await this.#redis.del(...keys);
    await this.#redis.quit();
  }
}
