import type { FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../context.js';
import { requireApiKey } from './authenticate.js';

function declaresApiKey(schema: FastifySchema | undefined): boolean {
  const security = (schema as { security?: Record<string, unknown>[] } | undefined)?.security;
  return Array.isArray(security) && security.some((requirement) => 'ApiKey' in requirement);
}

/**
 * The one way a route takes an ApiKey: it declares `security: apiKeySecurity` (platform/http/responses.ts) in its schema, and this hook
 * (the first onRequest hook after X-Request-Id, before the body is read) verifies the key and applies the
 * per-key limits. What the OpenAPI document says a route needs is, by construction, what it checks. Register
 * it on the root before the routes, after the HTTP basics.
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
