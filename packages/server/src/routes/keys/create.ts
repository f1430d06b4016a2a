import { CreateKeyBodySchema, CreateKeyDataSchema } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createApiKey } from '../../auth/api-keys.js';
import { principalOf } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/api-error.js';
import { success } from '../../http/envelope.js';
import { iso } from '../../http/time.js';
import type { Queryable } from '../../storage/database.js';
import { apiKeySecurity, responses } from '../responses.js';

/**
 * A key may mint keys, and each new key brings its own rate limits: without a bound, one key would turn into
 * any number of keys (and rows). Live keys per user, and keys minted here per user and hour, are capped.
 */
export const KEY_CAPS = { livePerUser: 100, createdPerHour: 20 } as const;
const CAP_RETRY_SECONDS = 3600;

async function refuseBeyondKeyCaps(tx: Queryable, userId: string): Promise<void> {
  // Concurrent creations of one user wait for each other, so they cannot both take the last place.
  await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [userId]);
  const { rows } = await tx.query<{ live: number; recent: number }>(
    `SELECT count(*) FILTER (WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()))::int AS live,
            count(*) FILTER (WHERE kind = 'agent' AND created_at > now() - interval '1 hour')::int AS recent
       FROM expense_internal.api_keys WHERE user_id = $1`,
    [userId],
  );
  const { live, recent } = rows[0] ?? { live: 0, recent: 0 };
  const refuse = (policy: string, message: string, limit: number, count: number) =>
    new ApiError('rate_limited', message, {
      variant: 'key_caps',
      headers: { 'retry-after': String(CAP_RETRY_SECONDS) },
      details: { policy, limit, count, retryAfterSeconds: CAP_RETRY_SECONDS },
    });
  if (live >= KEY_CAPS.livePerUser) {
    throw refuse(
      'live-keys-per-user',
      `You have ${live} live keys: at most ${KEY_CAPS.livePerUser}.`,
      KEY_CAPS.livePerUser,
      live,
    );
  }
  if (recent >= KEY_CAPS.createdPerHour) {
    throw refuse(
      'new-keys-per-user-hour',
      `${recent} keys were created for you in the last hour: at most ${KEY_CAPS.createdPerHour}.`,
      KEY_CAPS.createdPerHour,
      recent,
    );
  }
}

/**
 * POST /v1/keys {label}: a new key of kind `agent` for the caller, shown once (the console's "new key").
 * Only a key with the whole of its user's reach may mint one: an OAuth token, a read-only key or a key bound
 * to one workspace would otherwise turn itself into a broader, longer-lived credential.
 */
export function createKeyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/keys',
      {
        config: { fieldCodes: { label: 'invalid_label' } },
        schema: {
          tags: ['keys'],
          summary: 'Create a key of kind agent for yourself (shown once)',
          security: apiKeySecurity,
          body: CreateKeyBodySchema,
          response: responses(201, CreateKeyDataSchema),
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        if (
          principal.kind === 'oauth' ||
          principal.access !== 'read_write' ||
          principal.workspaceId !== null
        ) {
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
    );
  };
}
