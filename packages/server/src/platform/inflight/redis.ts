import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MemoryInflightCounter } from './memory.js';
import type { InflightCounter, InflightLimits, InflightRefusal, InflightSubject, Lease } from './types.js';

/**
 * One sorted set per key and per user, of lease ids scored by when they expire (Redis's own clock, so the
 * processes' clocks do not matter). Expired leases (a process that died holding them) are pruned, the counts
 * checked and the lease added in one atomic step. Both sets carry the user id as hash tag: one slot in a cluster.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + ttl, ARGV[1])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 0
`;

/** Pushes a live lease's expiry `ttl` ahead (Redis's clock again); a lease already pruned is not re-added. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], 'XX', now + ttl, ARGV[1])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 0
`;

/** How long a request waits for a connecting Redis before it is counted in this process alone. */
const CONNECT_WAIT_MS = 1_000;

type LeaseCommand = (keySet: string, userSet: string, ...args: (string | number)[]) => Promise<number>;
interface LeaseCommands {
  expenseInflightAcquire: LeaseCommand;
  expenseInflightRenew: LeaseCommand;
}

/** In-flight counts shared by every process on the same Redis (and key prefix). */
export class RedisInflightCounter implements InflightCounter {
  readonly #fallback: MemoryInflightCounter;

  constructor(
    private readonly redis: Redis,
    private readonly limits: InflightLimits,
    private readonly prefix: string,
    /** Redis did not answer: this request is counted in this process only. */
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.#fallback = new MemoryInflightCounter(limits);
    redis.defineCommand('expenseInflightAcquire', { numberOfKeys: 2, lua: ACQUIRE });
    redis.defineCommand('expenseInflightRenew', { numberOfKeys: 2, lua: RENEW });
  }

  /** The Redis keys of a subject's sets. */
  keysOf(subject: InflightSubject): { key: string; user: string } {
    const tag = `${this.prefix}:inflight:{${subject.userId}}`;
    return { key: `${tag}:key:${subject.connectionId}`, user: `${tag}:user` };
  }

  async acquire(subject: InflightSubject, ttlMs: number): Promise<Lease | InflightRefusal> {
    await this.#connected();
    const sets = this.keysOf(subject);
    const id = randomUUID();
    const commands = this.redis as unknown as LeaseCommands;
    const ttl = Math.max(1, Math.ceil(ttlMs));
    let answer: number;
    try {
      answer = await commands.expenseInflightAcquire.call(
        this.redis,
        sets.key,
        sets.user,
        id,
        ttl,
        this.limits.perKey,
        this.limits.perUser,
      );
    } catch (error) {
      this.onError(error);
      return this.#fallback.acquireNow(subject);
    }
    if (answer === 1) return { scope: 'key', limit: this.limits.perKey };
    if (answer === 2) return { scope: 'user', limit: this.limits.perUser };
    // Renewed while held (a statement may run past any fixed expiry): only a process that died stops renewing.
    const renewal = setInterval(
      () => {
        commands.expenseInflightRenew
          .call(this.redis, sets.key, sets.user, id, ttl)
          .catch((error: unknown) => this.onError(error));
      },
      Math.max(1, Math.floor(ttl / 3)),
    );
    renewal.unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renewal);
        // A release that does not reach Redis is not lost: the lease expires on its own.
        await this.redis
          .multi()
          .zrem(sets.key, id)
          .zrem(sets.user, id)
          .exec()
          .catch((error: unknown) => this.onError(error));
      },
    };
  }

  async close(): Promise<void> {}

  /** Right after start (or a reconnect) the client is still connecting: wait a moment rather than fall back. */
  async #connected(): Promise<void> {
    if (this.redis.status === 'ready' || this.redis.status === 'end') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_WAIT_MS);
      this.redis.once('ready', done);
    });
  }
}
