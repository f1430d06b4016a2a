import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { applyKeyLimits } from '../ratelimit/key-limits.js';
import type { Principal } from './api-keys.js';

const AUTH_HEADER = /^ApiKey[ \t]+(\S+)[ \t]*$/i;

/**
 * The first hook of every keyed route (onRequest): verifies `Authorization: ApiKey <key>` and applies the per-key
 * limits before the body is read or validated, so a request without a valid key gets 401 whatever its body, and
 * an unauthenticated client costs no body parsing.
 */
export function requireApiKey(ctx: AppContext): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new ApiError('missing_api_key', 'This route needs an ApiKey.');
    }
    const match = AUTH_HEADER.exec(header);
    const principal = match ? await ctx.keys.verify(match[1]!) : undefined;
    if (!principal) throw new ApiError('invalid_api_key', 'The ApiKey is not valid.');
    await applyKeyLimits(ctx.keyLimits, principal.connectionId, reply);
    request.principal = principal;
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key', 'This route needs an ApiKey.');
  return request.principal;
}
