import {
  API_ROUTES,
  fastifyRoute,
  InvitationParamsSchema,
  InvitationsDataSchema,
  WorkspaceDataSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, errorResponses, responses } from '../../platform/http/responses.js';
import { principalOf } from '../auth/authenticate.js';
import { acceptInvitation, declineInvitation, listInvitations } from './store.js';

/** The caller's pending invitations: list, accept (becomes an active member), decline. */
export function invitationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const a = ctx.actions;

    app.route({
      ...fastifyRoute(API_ROUTES.invitations),
      // Invitations are to other workspaces: beyond a read-only or one-workspace consent.
      config: { narrowKeys: 'refuse' },
      schema: {
        tags: ['invitations'],
        summary: 'Your pending invitations to workspaces (they give no access until accepted)',
        security: apiKeySecurity,
        response: responses(200, InvitationsDataSchema),
      },
      handler: async (request) => {
        const { userId } = principalOf(request);
        const invitations = await listInvitations(ctx.db, userId);
        return success(
          { invitations },
          invitations.length === 0
            ? ['You have no pending invitations.']
            : [
                'Ask the user whether to join each workspace, then accept or decline the invitation.',
                'Accepting makes you a member: the owners can then also remove you, which revokes all your keys.',
              ],
          invitations.flatMap((i) => [a.acceptInvitation(i.workspaceId), a.declineInvitation(i.workspaceId)]),
        );
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.acceptInvitation),
      schema: {
        tags: ['invitations'],
        summary: 'Accept an invitation: you become a member of the workspace',
        security: apiKeySecurity,
        params: InvitationParamsSchema,
        response: responses(200, WorkspaceDataSchema),
      },
      handler: async (request) => {
        const { userId } = principalOf(request);
        const workspace = await ctx.db.transaction((tx) =>
          acceptInvitation(tx, userId, request.params.workspaceId),
        );
        return success(
          { workspace },
          [
            'You are now a member. Select the workspace with POST /workspaces/{workspaceId}/select to use it for SQL.',
          ],
          [a.selectWorkspace(workspace.workspaceId), a.listWorkspaces()],
        );
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.declineInvitation),
      schema: {
        tags: ['invitations'],
        summary: 'Decline an invitation',
        security: apiKeySecurity,
        params: InvitationParamsSchema,
        response: { 204: z.null().describe('Declined'), ...errorResponses },
      },
      handler: async (request, reply) => {
        const { userId } = principalOf(request);
        await declineInvitation(ctx.db, userId, request.params.workspaceId);
        return reply.code(204).send(null);
      },
    });
  };
}
