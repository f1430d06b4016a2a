import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { principalOf } from '../auth/authenticate.js';

/**
 * An export or a restore takes one of the caller's in-flight places, as a SQL request does (inflight/): each reads
 * or writes a whole workspace on the server's own connections, and a restore holds its body in memory, so one key
 * sending them back to back is bounded by EXPENSE_MAX_INFLIGHT_PER_KEY/PER_USER (429 too_many_concurrent_requests
 * beyond). Taken before the body is read; given back when the answer is done or its connection closed.
 */
export async function holdPlace(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const lease = await ctx.inflight.admit(principalOf(request));
  reply.raw.once('close', () => void lease.release());
}

/** Restores whose bodies the server holds at once, over all users (each up to EXPENSE_RESTORE_MAX_BYTES). */
export const MAX_RESTORES = 2;
const RESTORE_RETRY_SECONDS = 5;
let restoring = 0;

/**
 * A restore also takes one of the server's MAX_RESTORES places, before its body is read: a body is held as text and
 * as parsed JSON until its transaction ends, so the caller's in-flight places alone (4 per user) would let a few
 * users hold several times EXPENSE_RESTORE_MAX_BYTES. Beyond, 429 rate_limited with Retry-After, nothing read.
 * Given back when the answer is done or its connection closed.
 */
export function holdRestorePlace(reply: FastifyReply): void {
  if (restoring >= MAX_RESTORES)
    throw new ApiError(
      'rate_limited',
      `The server is restoring ${MAX_RESTORES} exports already; this one was not read.`,
      {
        details: { retryAfterSeconds: RESTORE_RETRY_SECONDS },
        headers: { 'retry-after': String(RESTORE_RETRY_SECONDS) },
      },
    );
  restoring++;
  reply.raw.once('close', () => {
    restoring--;
  });
}
