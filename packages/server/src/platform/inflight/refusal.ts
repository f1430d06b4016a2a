import { ApiError } from '../http/api-error.js';
import type { InflightRefusal } from './types.js';

/** 429 too_many_concurrent_requests: the key or the user already has its maximum of SQL requests in flight. */
export function tooManyConcurrent(refusal: InflightRefusal): ApiError {
  const message =
    refusal.scope === 'key'
      ? `This key already has ${refusal.limit} SQL requests in flight, the most one key may have at once.`
      : `This user already has ${refusal.limit} SQL requests in flight over all their keys, the most one user may have at once.`;
  return new ApiError('too_many_concurrent_requests', message, {
    headers: { 'retry-after': '1' },
    details: { scope: refusal.scope, limit: refusal.limit, retryAfterSeconds: 1 },
  });
}
