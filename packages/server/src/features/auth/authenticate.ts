import type { FastifyReply, FastifyRequest, FastifySchema, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { clientBucket } from '../../platform/ratelimit/client-address.js';
import {
  checkInvalidKeyBudget,
  overInvalidKeyBudget,
  spendInvalidKey,
} from '../../platform/ratelimit/invalid-keys.js';
import { applyKeyLimits } from '../../platform/ratelimit/limits.js';
import type { Principal } from './api-keys.js';
import { enforceKeyConsent, hasAudience } from './consent.js';
import { invalidKeyError } from './key-refusal.js';
import { isWellFormedApiKey } from './secrets.js';

/** `ApiKey <key>`, or `Bearer <token>` for OAuth clients (their access tokens are ApiKeys of kind oauth). */
const AUTH_HEADER = /^(?:ApiKey|Bearer)[ \t]+(\S+)[ \t]*$/i;

/**
 * The check behind every keyed route (attached by apiKeyAuth below, onRequest): verifies `Authorization: ApiKey <key>` and applies the per-key
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
    const principal = await verifyKey(ctx, match?.[1], request.ip);
    if (!principal) throw await invalidKeyError(ctx, match?.[1], 'The ApiKey is not valid.');
    await applyKeyLimits(ctx.keyLimits, principal.connectionId, reply);
    enforceKeyConsent(request, principal);
    request.principal = principal;
  };
}

/**
 * Verifies a key under the unknown-key limit of its client address (an IPv6 address counts as its /64; every
 * route that takes keys, /mcp too):
 * a client that sent too many unknown keys has its lookups batched, never refused before them; an unknown
 * well-formed key is counted, and past the limit answered 429 rate_limited. Undefined for a key that is not
 * valid (malformed keys cost no lookup and are not counted).
 */
export async function verifyKey(
  ctx: AppContext,
  key: string | undefined,
  clientAddress: string,
): Promise<Principal | undefined> {
  if (key === undefined || !isWellFormedApiKey(key)) return undefined;
  // The address's bucket is needed only for a key the cache does not know, or one that is refused.
  const bucketOf = () => clientBucket(clientAddress);
  const verified = await ctx.keys.verify(key, async () => {
    const bucket = bucketOf();
    return (await overInvalidKeyBudget(ctx.invalidKeyLimit, bucket)) ? bucket : undefined;
  });
  // An OAuth token issued for another resource is no key here.
  const principal = verified && hasAudience(verified, ctx.actions.publicUrl) ? verified : undefined;
  if (!principal) {
    const bucket = bucketOf();
    await checkInvalidKeyBudget(ctx.invalidKeyLimit, bucket);
    await spendInvalidKey(ctx.invalidKeyLimit, bucket);
  }
  return principal;
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key', 'This route needs an ApiKey.');
  return request.principal;
}

function declaresApiKey(schema: FastifySchema | undefined): boolean {
  const security = (schema as { security?: Record<string, unknown>[] } | undefined)?.security;
  return Array.isArray(security) && security.some((requirement) => 'ApiKey' in requirement);
}

/**
 * The one way a route takes an ApiKey: it declares `security: apiKeySecurity` (platform/http/responses.ts) in its
 * schema, and this hook (the first onRequest hook after X-Request-Id, before the body is read) runs requireApiKey.
 * What the OpenAPI document says a route needs is, by construction, what it checks. Register it on the root
 * before the routes, after the HTTP basics.
 */
export const apiKeyAuth = fp<{ ctx: AppContext }>(
  async (app, { ctx }) => {
    const verify = requireApiKey(ctx);
    app.addHook('onRequest', async (request, reply) => {
      if (declaresApiKey(request.routeOptions.schema)) await verify.call(app, request, reply);
    });
  },
  { name: 'expense-api-key-auth', fastify: '5.x', dependencies: ['expense-http-basics'] },
);
