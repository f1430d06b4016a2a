import { ApiError, type ApiErrorOptions, isApiError } from '../http/api-error.js';
import { consumeAll, type Limiter, type RateLimits, rateLimitHeaders } from './limits.js';

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
