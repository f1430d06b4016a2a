import {
  AddMemberBodySchema,
  MemberDataSchema,
  MemberParamsSchema,
  MembersDataSchema,
  WorkspaceParamsSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf, requireApiKey } from '../../auth/authenticate.js';
import { upsertUser } from '../../auth/otp.js';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/api-error.js';
import { success } from '../../http/envelope.js';
import type { Queryable } from '../../storage/database.js';
import { apiKeySecurity, errorResponses, responses } from '../responses.js';
import { addMember, findMembership, listMembers, removeMember } from '../workspaces/store.js';

async function requireOwner(db: Queryable, userId: string, workspaceId: string, lock = false) {
  const workspace = await findMembership(db, userId, workspaceId, lock);
  if (workspace.role !== 'owner')
    throw new ApiError('forbidden', 'Only an owner of this workspace can manage its members.');
  return workspace;
}

/** Members of a workspace: list (members), add and remove (owners). */
export function memberRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(ctx));
    const a = ctx.actions;

    app.get(
      '/workspaces/:workspaceId/members',
      {
        schema: {
          tags: ['members'],
          summary: 'The members of a workspace',
          security: apiKeySecurity,
          params: WorkspaceParamsSchema,
          response: responses(200, MembersDataSchema),
        },
      },
      async (request) => {
        const { userId } = principalOf(request);
        const workspace = await findMembership(ctx.db, userId, request.params.workspaceId);
        const members = await listMembers(ctx.db, workspace.workspaceId);
        const actions =
          workspace.role === 'owner'
            ? [a.addMember(workspace.workspaceId), a.removeMember(workspace.workspaceId)]
            : [];
        return success({ members }, [], actions);
      },
    );

    app.post(
      '/workspaces/:workspaceId/members',
      {
        config: { fieldCodes: { email: 'invalid_email' } },
        schema: {
          tags: ['members'],
          summary:
            'Add a member by e-mail address (owners only); a new address becomes a user who can sign in later',
          security: apiKeySecurity,
          params: WorkspaceParamsSchema,
          body: AddMemberBodySchema,
          response: { ...responses(201, MemberDataSchema), 200: responses(201, MemberDataSchema)[201] },
        },
      },
      async (request, reply) => {
        const { userId } = principalOf(request);
        const result = await ctx.db.transaction(async (tx) => {
          const workspace = await requireOwner(tx, userId, request.params.workspaceId);
          const user = await upsertUser(tx, request.body.email);
          return addMember(tx, workspace.workspaceId, user.userId);
        });
        reply.code(result.created ? 201 : 200);
        return success(
          { member: result.member },
          [
            'The member signs in with this address (send-code) and then sees the workspace in GET /workspaces.',
          ],
          [a.listMembers(request.params.workspaceId)],
        );
      },
    );

    app.delete(
      '/workspaces/:workspaceId/members/:userId',
      {
        schema: {
          tags: ['members'],
          summary: "Remove a member (owners only); revokes all of that member's keys",
          security: apiKeySecurity,
          params: MemberParamsSchema,
          response: { 204: z.null().describe('Removed'), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { userId } = principalOf(request);
        const target = request.params.userId;
        await ctx.db.transaction(async (tx) => {
          const workspace = await requireOwner(tx, userId, request.params.workspaceId, true);
          await removeMember(tx, workspace.workspaceId, target);
        });
        ctx.keys.invalidate({ userId: target });
        return reply.code(204).send(null);
      },
    );
  };
}
