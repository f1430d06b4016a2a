import { Redis } from 'ioredis';
import { MemoryInflightCounter } from './memory.js';
import { RedisInflightCounter } from './redis.js';
import { tooManyConcurrent } from './refusal.js';
import type { InflightCounter, InflightLimits, InflightRefusal, InflightSubject, Lease } from './types.js';

export { MemoryInflightCounter } from './memory.js';
export { RedisInflightCounter } from './redis.js';
export { tooManyConcurrent } from './refusal.js';
export type { InflightCounter, InflightLimits, InflightRefusal, InflightSubject, Lease } from './types.js';

/**
 * How long a Redis lease of a process that died is still counted. A live process renews its leases (every third of
 * this) until it releases them, once the request's connection is back in the pool: a lease never lapses while
 * its statement still runs.
 */
export const LEASE_TTL_MS = 10_000;

export interface InflightOptions extends InflightLimits {
  /** Count in Redis, shared by every process using the same URL and prefix. */
  redisUrl?: string | undefined;
  redisKeyPrefix: string;
  /** See LEASE_TTL_MS (tests shorten it). */
  leaseTtlMs?: number;
  onRedisError?: (error: unknown) => void;
}

const isRefusal = (value: Lease | InflightRefusal): value is InflightRefusal => 'scope' in value;

/** The in-flight limits of SQL requests: `admit` gives a lease or throws 429 too_many_concurrent_requests. */
export class InflightLimiter {
  readonly #counter: InflightCounter;
  readonly #redis: Redis | undefined;
  readonly #leaseTtlMs: number;

  constructor(options: InflightOptions) {
    const limits = { perKey: options.perKey, perUser: options.perUser };
    this.#leaseTtlMs = options.leaseTtlMs ?? LEASE_TTL_MS;
    if (options.redisUrl) {
      this.#redis = new Redis(options.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        lazyConnect: false,
      });
      this.#redis.on('error', () => {}); // reported per command through onRedisError
      this.#counter = new RedisInflightCounter(
        this.#redis,
        limits,
        options.redisKeyPrefix,
        options.onRedisError,
      );
    } else {
      this.#counter = new MemoryInflightCounter(limits);
    }
  }

  /** A place in flight until released: release it once the request's connection is back in the pool. */
  async admit(subject: InflightSubject): Promise<Lease> {
    const result = await this.#counter.acquire(subject, this.#leaseTtlMs);
    if (isRefusal(result)) throw tooManyConcurrent(result);
    return result;
  }

  async close(): Promise<void> {
    await this.#counter.close();
    if (this.#redis) await this.#redis.quit().catch(() => this.#redis?.disconnect());
  }
}
