import { ApiError } from '../http/api-error.js';
import { consumeAll, type Limiter, type RateLimits } from './limits.js';

/**
 * Well-formed ApiKeys that turn out unknown or revoked, per client address: 20 per 10 minutes. Past it, the
 * address's keys that are not in the verified-key cache are looked up in the batched slow lane
 * (features/auth/batched-key-lookup.ts), never refused before the lookup: a valid key is answered as usual, an unknown
 * one is refused with 429 after its lookup missed. A flood of guesses thus costs the database at most one
 * batched query in flight, whatever its size, and locks out no one who shares the address.
 */
export const INVALID_KEY_LIMIT = { name: 'invalid-api-keys', points: 20, durationSeconds: 600 } as const;

export function createInvalidKeyLimit(limits: RateLimits): Limiter {
  return limits.create(INVALID_KEY_LIMIT);
}

/** Whether the client has used up its invalid keys (spends nothing): its lookups then take the slow lane. */
export async function overInvalidKeyBudget(limiter: Limiter, clientAddress: string): Promise<boolean> {
  const state = await limiter.limiter.get(clientAddress);
  return state !== null && state.consumedPoints >= limiter.rule.points;
}

/** Throws 429 rate_limited when the client has used up its invalid keys (spends nothing). */
export async function checkInvalidKeyBudget(limiter: Limiter, clientAddress: string): Promise<void> {
  const state = await limiter.limiter.get(clientAddress);
  if (!state || state.consumedPoints < limiter.rule.points) return;
  const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  throw new ApiError(
    'rate_limited',
    `Too many invalid ApiKeys from this client: at most ${limiter.rule.points} per ${limiter.rule.durationSeconds / 60} minutes.`,
    {
      variant: 'invalid_keys',
      headers: { 'retry-after': String(retryAfter) },
      details: {
        limit: limiter.rule.points,
        windowSeconds: limiter.rule.durationSeconds,
        retryAfterSeconds: retryAfter,
        policy: limiter.rule.name,
      },
    },
  );
}

/** Records one invalid key of the client (429 only if concurrent requests went past the limit). */
export async function spendInvalidKey(limiter: Limiter, clientAddress: string): Promise<void> {
  await consumeAll([{ limiter, key: clientAddress }], 'invalid ApiKeys from this client');
}
