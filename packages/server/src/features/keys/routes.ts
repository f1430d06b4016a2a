import { API_ROUTES, ConnectionParamsSchema, fastifyRoute, KeysDataSchema } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, errorResponses, responses } from '../../platform/http/responses.js';
import { iso, isoOrNull } from '../../platform/http/time.js';
import type { KeyAccess, KeyKind } from '../auth/api-keys.js';
import { principalOf } from '../auth/authenticate.js';
import { accountScopeError, hasWholeReach } from '../auth/consent.js';
import { isUuid } from '../workspaces/store.js';

/**
 * GET /v1/keys and DELETE /v1/keys/{connectionId}: the caller's own keys. A key without its user's whole reach
 * (read-only, one workspace, an OAuth connection) sees and revokes only itself: its consent covers data, not
 * the user's other credentials.
 */
export function keyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.route({
      ...fastifyRoute(API_ROUTES.keys),
      schema: {
        tags: ['keys'],
        summary: 'Your active keys',
        security: apiKeySecurity,
        response: responses(200, KeysDataSchema),
      },
      handler: async (request) => {
        const principal = principalOf(request);
        const { userId, connectionId } = principal;
        const onlyItself = !hasWholeReach(principal);
        const { rows } = await ctx.db.query<{
          connection_id: string;
          label: string;
          created_at: Date;
          last_used_at: Date | null;
          kind: KeyKind;
          access: KeyAccess;
          workspace_id: string | null;
          expires_at: Date | null;
          client_id: string | null;
          client_name: string | null;
        }>(
          // An OAuth connection lives as long as its grant (its access token is renewed hourly): listed, and
          // revocable, while the grant is, with the grant's expiry.
          `SELECT k.connection_id, k.label, k.created_at, k.last_used_at, k.kind, k.access, k.workspace_id,
                  coalesce(g.expires_at, k.expires_at) AS expires_at, c.client_id, c.client_name
             FROM expense_internal.api_keys AS k
             LEFT JOIN expense_internal.oauth_grants AS g ON g.grant_id = k.oauth_grant_id
             LEFT JOIN expense_internal.oauth_clients AS c ON c.client_id = g.client_id
            WHERE k.user_id = $1 AND k.revoked_at IS NULL
              AND coalesce(g.expires_at, k.expires_at, 'infinity') > now()
              AND ($2::uuid IS NULL OR k.connection_id = $2::uuid)
            ORDER BY k.created_at, k.connection_id`,
          [userId, onlyItself ? connectionId : null],
        );
        const keys = rows.map((r) => ({
          connectionId: r.connection_id,
          label: r.label,
          createdAt: iso(r.created_at),
          lastUsedAt: isoOrNull(r.last_used_at),
          current: r.connection_id === connectionId,
          kind: r.kind,
          access: r.access,
          workspaceId: r.workspace_id,
          expiresAt: isoOrNull(r.expires_at),
          ...(r.client_id ? { client: { clientId: r.client_id, name: r.client_name ?? r.client_id } } : {}),
        }));
        return success(
          { keys },
          onlyItself
            ? [
                "This list holds only this key: its consent (read-only, one workspace, or an OAuth connection) does not cover the user's other keys.",
              ]
            : [],
          keys.map((k) => ctx.actions.revokeKey(k.connectionId)),
        );
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.revokeKey),
      schema: {
        tags: ['keys'],
        summary: 'Revoke one of your keys (at once)',
        security: apiKeySecurity,
        params: ConnectionParamsSchema,
        response: { 204: z.null().describe('Revoked'), ...errorResponses },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        const { userId } = principal;
        const id = request.params.connectionId;
        if (!hasWholeReach(principal) && id.toLowerCase() !== principal.connectionId) {
          throw accountScopeError(
            "This key may revoke only itself: its consent does not cover the user's other keys.",
          );
        }
        const revoked = isUuid(id) ? await ctx.keyStore.revoke({ connectionId: id, userId }) : 0;
        if (revoked === 0) {
          throw new ApiError('not_found', 'You have no active key with this connectionId.', {
            variant: 'key',
          });
        }
        return reply.code(204).send(null);
      },
    });
  };
}
