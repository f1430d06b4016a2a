import { ConnectionParamsSchema, KeysDataSchema } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf, requireApiKey } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/api-error.js';
import { success } from '../../http/envelope.js';
import { iso, isoOrNull } from '../../http/time.js';
import { isUuid } from '../../workspaces/store.js';
import { apiKeySecurity, errorResponses, responses } from '../responses.js';

/** GET /v1/keys and DELETE /v1/keys/{connectionId}: the caller's own keys. */
export function keyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(ctx));

    app.get(
      '/keys',
      {
        schema: {
          tags: ['keys'],
          summary: 'Your active keys',
          security: apiKeySecurity,
          response: responses(200, KeysDataSchema),
        },
      },
      async (request) => {
        const { userId, connectionId } = principalOf(request);
        const { rows } = await ctx.db.query<{
          connection_id: string;
          label: string;
          created_at: Date;
          last_used_at: Date | null;
        }>(
          `SELECT connection_id, label, created_at, last_used_at FROM expense_internal.api_keys
           WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, connection_id`,
          [userId],
        );
        const keys = rows.map((r) => ({
          connectionId: r.connection_id,
          label: r.label,
          createdAt: iso(r.created_at),
          lastUsedAt: isoOrNull(r.last_used_at),
          current: r.connection_id === connectionId,
        }));
        return success(
          { keys },
          [],
          keys.map((k) => ctx.actions.revokeKey(k.connectionId)),
        );
      },
    );

    app.delete(
      '/keys/:connectionId',
      {
        schema: {
          tags: ['keys'],
          summary: 'Revoke one of your keys (at once)',
          security: apiKeySecurity,
          params: ConnectionParamsSchema,
          response: { 204: z.null().describe('Revoked'), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { userId } = principalOf(request);
        const id = request.params.connectionId;
        const result = isUuid(id)
          ? await ctx.db.query(
              `UPDATE expense_internal.api_keys SET revoked_at = now()
               WHERE connection_id = $1 AND user_id = $2 AND revoked_at IS NULL`,
              [id, userId],
            )
          : { rowCount: 0 };
        if (result.rowCount === 0) {
          throw new ApiError('not_found', 'You have no active key with this connectionId.', {
            actions: [ctx.actions.listKeys()],
          });
        }
        ctx.keys.invalidate({ connectionId: id });
        return reply.code(204).send(null);
      },
    );
  };
}
