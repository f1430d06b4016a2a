import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { ApiError, type ApiErrorOptions, isApiError } from '../http/api-error.js';

export interface LimitRule {
  name: string;
  points: number;
  durationSeconds: number;
}

export interface Limiter {
  rule: LimitRule;
  limiter: RateLimiterAbstract;
}

/** Rate-limit counters in memory, or in Redis (shared by several processes) when a URL is given. */
export class RateLimits {
  private readonly redis: Redis | undefined;

  constructor(
    redisUrl: string | undefined,
    private readonly keyPrefix = 'expense',
  ) {
    this.redis = redisUrl
      ? new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false })
      : undefined;
    // ioredis reports connection problems as events; the insurance limiter covers for them.
    this.redis?.on('error', () => {});
  }

  create(rule: LimitRule): Limiter {
    const options = {
      keyPrefix: `${this.keyPrefix}:${rule.name}`,
      points: rule.points,
      duration: rule.durationSeconds,
    };
    const memory = new RateLimiterMemory(options);
    const limiter = this.redis
      ? new RateLimiterRedis({ ...options, storeClient: this.redis, insuranceLimiter: memory })
      : memory;
    return { rule, limiter };
  }

  async close(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

export interface Consumed {
  rule: LimitRule;
  remaining: number;
  resetSeconds: number;
}

/** Consumes one point from each limiter in order; the first exhausted one gives 429 rate_limited. */
export async function consumeAll(
  limiters: { limiter: Limiter; key: string }[],
  what: string,
): Promise<Consumed[]> {
  const consumed: Consumed[] = [];
  for (const { limiter, key } of limiters) {
    try {
      const res = await limiter.limiter.consume(key);
      consumed.push({
        rule: limiter.rule,
        remaining: res.remainingPoints,
        resetSeconds: Math.ceil(res.msBeforeNext / 1000),
      });
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new ApiError(
        'rate_limited',
        `Too many ${what}: at most ${limiter.rule.points} per ${describe(limiter.rule.durationSeconds)}.`,
        {
          headers: { 'retry-after': String(retryAfter) },
          details: {
            limit: limiter.rule.points,
            windowSeconds: limiter.rule.durationSeconds,
            retryAfterSeconds: retryAfter,
          },
        },
      );
    }
  }
  return consumed;
}

function describe(seconds: number): string {
  if (seconds === 1) return 'second';
  if (seconds === 3600) return 'hour';
  if (seconds === 86_400) return 'day';
  return `${seconds} seconds`;
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): every policy, and the tightest state. */
export function rateLimitHeaders(consumed: Consumed[]): Record<string, string> {
  if (consumed.length === 0) return {};
  const policy = consumed
    .map((c) => `"${c.rule.name}";q=${c.rule.points};w=${c.rule.durationSeconds}`)
    .join(', ');
  const tightest = consumed.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  return {
    'ratelimit-policy': policy,
    ratelimit: `"${tightest.rule.name}";r=${tightest.remaining};t=${tightest.resetSeconds}`,
  };
}

/** The per-key policies: a one-second burst window and a daily quota (EXPENSE_RATE_PER_SECOND / _PER_DAY). */
export function createKeyLimits(
  limits: RateLimits,
  rates: { ratePerSecond: number; ratePerDay: number },
): Limiter[] {
  return [
    limits.create({ name: 'burst', points: rates.ratePerSecond, durationSeconds: 1 }),
    limits.create({ name: 'daily', points: rates.ratePerDay, durationSeconds: 86_400 }),
  ];
}

function policyHeader(limiters: Limiter[]): string {
  return limiters.map((l) => `"${l.rule.name}";q=${l.rule.points};w=${l.rule.durationSeconds}`).join(', ');
}

/**
 * Spends one request of `key` on every policy and sets the IETF RateLimit-Policy and RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers) on the reply; an exhausted policy throws 429 rate_limited with
 * Retry-After and the same fields (r=0 on the exhausted policy).
 */
export async function applyKeyLimits(
  limiters: Limiter[],
  key: string,
  reply: { headers(values: Record<string, string>): unknown },
): Promise<void> {
  try {
    const consumed = await consumeAll(
      limiters.map((limiter) => ({ limiter, key })),
      'requests for this key',
    );
    reply.headers(rateLimitHeaders(consumed));
  } catch (error) {
    if (!isApiError(error) || error.code !== 'rate_limited') throw error;
    const details = error.options.details as {
      limit: number;
      windowSeconds: number;
      retryAfterSeconds: number;
    };
    const exhausted = limiters.find(
      (l) => l.rule.points === details.limit && l.rule.durationSeconds === details.windowSeconds,
    );
    throw new ApiError('rate_limited', error.message, {
      ...(error.options as ApiErrorOptions<'rate_limited'>),
      details: { ...details, policy: exhausted?.rule.name },
      headers: {
        ...error.options.headers,
        'ratelimit-policy': policyHeader(limiters),
        ratelimit: `"${exhausted?.rule.name ?? 'burst'}";r=0;t=${details.retryAfterSeconds}`,
      },
    });
  }
}
