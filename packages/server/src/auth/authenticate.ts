import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { checkInvalidKeyBudget, spendInvalidKey } from '../ratelimit/invalid-keys.js';
import { applyKeyLimits } from '../ratelimit/key-limits.js';
import type { Principal } from './api-keys.js';
import { enforceKeyConsent, hasAudience } from './consent.js';
import { isWellFormedApiKey } from './secrets.js';

/** `ApiKey <key>`, or `Bearer <token>` for OAuth clients (their access tokens are ApiKeys of kind oauth). */
const AUTH_HEADER = /^(?:ApiKey|Bearer)[ \t]+(\S+)[ \t]*$/i;

/**
 * The check behind every keyed route (attached by api-key-auth.ts, onRequest): verifies `Authorization: ApiKey <key>` and applies the per-key
 * limits before the body is read or validated, so a request without a valid key gets 401 whatever its body, and
 * an unauthenticated client costs no body parsing.
 */
export function requireApiKey(ctx: AppContext): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // Already verified for this request (a route still naming this hook beside api-key-auth.ts): once only.
    if (request.principal) return;
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new ApiError('missing_api_key', 'This route needs an ApiKey.');
    }
    const match = AUTH_HEADER.exec(header);
    const key = match?.[1];
    const wellFormed = key !== undefined && isWellFormedApiKey(key);
    // A client that sent too many unknown keys gets no further database lookups for a while.
    const principal = wellFormed
      ? await ctx.keys.verify(key, () => checkInvalidKeyBudget(ctx.invalidKeyLimit, request.ip))
      : undefined;
    if (!principal || !hasAudience(principal, ctx.actions.publicUrl)) {
      if (wellFormed) await spendInvalidKey(ctx.invalidKeyLimit, request.ip);
      throw new ApiError('invalid_api_key', 'The ApiKey is not valid.');
    }
    await applyKeyLimits(ctx.keyLimits, principal.connectionId, reply);
    enforceKeyConsent(request, principal);
    request.principal = principal;
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key', 'This route needs an ApiKey.');
  return request.principal;
}
