import { API_ROUTES, CreateKeyBodySchema, CreateKeyDataSchema, fastifyRoute } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { iso } from '../../platform/http/time.js';
import { createApiKey } from '../auth/api-keys.js';
import { principalOf } from '../auth/authenticate.js';
import { hasWholeReach } from '../auth/consent.js';
import { refuseBeyondKeyCaps } from '../auth/key-caps.js';

/**
 * POST /v1/keys {label}: a new key of kind `agent` for the caller, shown once (the console's "new key").
 * Only a key with the whole of its user's reach may mint one: an OAuth token, a read-only key or a key bound
 * to one workspace would otherwise turn itself into a broader, longer-lived credential.
 */
export function createKeyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.route({
      ...fastifyRoute(API_ROUTES.createKey),
      config: { fieldCodes: { label: 'invalid_label' } },
      schema: {
        tags: ['keys'],
        summary: 'Create a key of kind agent for yourself (shown once)',
        security: apiKeySecurity,
        body: CreateKeyBodySchema,
        response: responses(201, CreateKeyDataSchema),
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        if (!hasWholeReach(principal)) {
          throw new ApiError('forbidden', 'This key may not create keys.', {
            variant: 'narrow_key',
          });
        }
        const label = request.body.label.trim();
        const key = await ctx.db.transaction(async (tx) => {
          await refuseBeyondKeyCaps(tx, principal.userId);
          return createApiKey(tx, principal.userId, label, { kind: 'agent' });
        });
        reply.code(201);
        return success(
          {
            apiKey: key.apiKey,
            connection: {
              connectionId: key.connectionId,
              label,
              kind: 'agent' as const,
              createdAt: iso(key.createdAt),
            },
          },
          [
            'Store the ApiKey outside chat memory now; it is shown only once.',
            'Send it on every call as "Authorization: ApiKey <key>".',
          ],
          [ctx.actions.listKeys(), ctx.actions.revokeKey(key.connectionId)],
        );
      },
    });
  };
}
