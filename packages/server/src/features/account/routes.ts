import { API_ROUTES, fastifyRoute, MeDataSchema } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { clockAt } from '../../platform/clock/clock.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { iso, isoOrNull } from '../../platform/http/time.js';
import { principalOf } from '../auth/authenticate.js';
import { fxInstructions } from '../fx/coverage.js';
import { invitationPrompt } from '../invitations/prompt.js';

/** GET /v1/me. */
export function meRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.route({
      ...fastifyRoute(API_ROUTES.me),
      schema: {
        tags: ['account'],
        summary: 'The signed-in user, this key, and its selected workspace',
        security: apiKeySecurity,
        response: responses(200, MeDataSchema),
      },
      handler: async (request) => {
        const { connectionId } = principalOf(request);
        const { rows } = await ctx.db.query<{
          user_id: string;
          email: string;
          label: string;
          created_at: Date;
          last_used_at: Date | null;
          selected_workspace_id: string | null;
          timezone: string | null;
          pending_invitations: number;
        }>(
          `SELECT u.user_id, u.email, k.label, k.created_at, k.last_used_at, k.selected_workspace_id,
             (SELECT s.timezone FROM public.workspace_settings s WHERE s.workspace_id = k.selected_workspace_id) AS timezone,
             (SELECT count(*)::int FROM expense_internal.workspace_invitations i
              WHERE i.user_id = u.user_id
                AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_members m
                                WHERE m.workspace_id = i.workspace_id AND m.user_id = i.user_id))
               AS pending_invitations
           FROM expense_internal.api_keys k JOIN expense_internal.users u USING (user_id)
           WHERE k.connection_id = $1 AND k.revoked_at IS NULL`,
          [connectionId],
        );
        const row = rows[0];
        if (!row) throw new ApiError('invalid_api_key', 'The ApiKey is not valid.');
        const selected = row.selected_workspace_id;
        const clock = clockAt(new Date(), row.timezone ?? 'UTC');
        const invitations = invitationPrompt(row.pending_invitations, ctx.actions);
        return success(
          {
            user: { userId: row.user_id, email: row.email },
            connection: {
              connectionId,
              label: row.label,
              createdAt: iso(row.created_at),
              lastUsedAt: isoOrNull(row.last_used_at),
            },
            selectedWorkspaceId: selected,
            clock,
          },
          [
            ...(selected
              ? [
                  'A workspace is selected: read GET /schema, then use the SQL endpoints.',
                  ...(await fxInstructions(ctx.fxCoverage, clock.today)),
                ]
              : [
                  'Call GET /workspaces to see your workspaces (create one with POST /workspaces if there is none).',
                  'Then select one with POST /workspaces/{workspaceId}/select.',
                ]),
            ...invitations.instructions,
          ],
          [
            ...(selected
              ? [ctx.actions.schema(), ...ctx.actions.sql(), ctx.actions.listWorkspaces()]
              : [ctx.actions.listWorkspaces(), ctx.actions.selectWorkspace(), ctx.actions.createWorkspace()]),
            ...invitations.actions,
          ],
        );
      },
    });
  };
}
