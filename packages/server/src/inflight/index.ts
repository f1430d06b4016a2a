import { Redis } from 'ioredis';
import { MemoryInflightCounter } from './memory.js';
import { RedisInflightCounter } from './redis.js';
import { tooManyConcurrent } from './refusal.js';
import {
  type InflightCounter,
  type InflightLimits,
  type InflightSubject,
  isRefusal,
  type Lease,
} from './types.js';

export { MemoryInflightCounter } from './memory.js';
export { RedisInflightCounter } from './redis.js';
export { tooManyConcurrent } from './refusal.js';
export type { InflightCounter, InflightLimits, InflightRefusal, InflightSubject, Lease } from './types.js';

/** How long after its deadline a lease of a process that died is still counted. */
export const LEASE_MARGIN_MS = 5_000;

export interface InflightOptions extends InflightLimits {
  /** Count in Redis, shared by every process using the same URL and prefix. */
  redisUrl?: string | undefined;
  redisKeyPrefix: string;
  onRedisError?: (error: unknown) => void;
}

/** The in-flight limits of SQL requests: `admit` gives a lease or throws 429 too_many_concurrent_requests. */
export class InflightLimiter {
  readonly #counter: InflightCounter;
  readonly #redis: Redis | undefined;

  constructor(options: InflightOptions) {
    const limits = { perKey: options.perKey, perUser: options.perUser };
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

  /** A place in flight until `deadlineMs` (plus a margin) at the latest; release it when the request ends. */
  async admit(subject: InflightSubject, deadlineMs: number): Promise<Lease> {
    const result = await this.#counter.acquire(subject, deadlineMs + LEASE_MARGIN_MS);
    if (isRefusal(result)) throw tooManyConcurrent(result);
    return result;
  }

  async close(): Promise<void> {
    await this.#counter.close();
    if (this.#redis) await this.#redis.quit().catch(() => this.#redis?.disconnect());
  }
}
