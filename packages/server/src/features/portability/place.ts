import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
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
