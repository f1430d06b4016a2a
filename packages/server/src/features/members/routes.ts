import {
  AddMemberBodySchema,
  API_ROUTES,
  fastifyRoute,
  type Member,
  MemberDataSchema,
  MemberParamsSchema,
  MembersDataSchema,
  WorkspaceParamsSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, errorResponses, responses } from '../../platform/http/responses.js';
import { idempotencyHeaderSchema, ownerWrite } from '../../platform/idempotency/owner-write.js';
import type { Queryable } from '../../platform/storage/database.js';
import { principalOf } from '../auth/authenticate.js';
import { normalizeEmail, upsertUser } from '../auth/otp.js';
import { admitInvitation } from '../invitations/limits.js';
import { invitationMail } from '../invitations/mail.js';
import {
  findMemberByEmail,
  findMembership,
  inviteMember,
  listMembers,
  removeMember,
} from '../workspaces/store.js';

async function requireOwner(db: Queryable, userId: string, workspaceId: string, lock = false) {
  const workspace = await findMembership(db, userId, workspaceId, lock);
  if (workspace.role !== 'owner')
    throw new ApiError('forbidden', 'Only an owner of this workspace can manage its members.');
  return workspace;
}

/**
 * For owners: how many live keys each active member holds, so that removing one (which revokes them all) can
 * say what it ends. Invitations hold no key of this workspace's and get no count.
 */
async function countActiveKeys(db: Queryable, members: Member[]): Promise<void> {
  const active = members.filter((m) => m.status === 'active');
  if (active.length === 0) return;
  const { rows } = await db.query<{ user_id: string; n: string | number }>(
    `SELECT user_id, count(*) AS n FROM expense_internal.api_keys
     WHERE user_id = ANY($1::uuid[]) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
     GROUP BY user_id`,
    [active.map((m) => m.userId)],
  );
  const counts = new Map(rows.map((r) => [r.user_id, Number(r.n)]));
  for (const m of active) m.activeKeys = counts.get(m.userId) ?? 0;
}

/** Members of a workspace: list (members), invite and remove (owners). */
export function memberRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const a = ctx.actions;

    app.route({
      ...fastifyRoute(API_ROUTES.members),
      schema: {
        tags: ['members'],
        summary: 'The members of a workspace',
        security: apiKeySecurity,
        params: WorkspaceParamsSchema,
        response: responses(200, MembersDataSchema),
      },
      handler: async (request) => {
        const { userId } = principalOf(request);
        const workspace = await findMembership(ctx.db, userId, request.params.workspaceId);
        const members = await listMembers(ctx.db, workspace.workspaceId);
        if (workspace.role === 'owner') await countActiveKeys(ctx.db, members);
        const actions =
          workspace.role === 'owner'
            ? [a.addMember(workspace.workspaceId), a.removeMember(workspace.workspaceId)]
            : [];
        return success({ members }, [], actions);
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.addMember),
      config: { fieldCodes: { email: 'invalid_email' } },
      schema: {
        tags: ['members'],
        summary:
          'Invite a member by e-mail address (owners only); the invitation gives no access until the invitee accepts it (also an address that has not signed in yet)',
        security: apiKeySecurity,
        headers: z.object(idempotencyHeaderSchema),
        params: WorkspaceParamsSchema,
        body: AddMemberBodySchema,
        response: { ...responses(201, MemberDataSchema), 200: responses(201, MemberDataSchema)[201] },
      },
      handler: async (request, reply) => {
        const { userId, connectionId } = principalOf(request);
        return ownerWrite(ctx, request, reply, connectionId, {
          endpoint: 'POST /workspaces/{workspaceId}/members',
          workspaceId: null,
          transaction: async (tx) => {
            const workspace = await requireOwner(tx, userId, request.params.workspaceId);
            const email = normalizeEmail(request.body.email);
            // A new invitation is admitted before anything is written; admission never waits for a lock.
            const known = await findMemberByEmail(tx, workspace.workspaceId, email);
            if (!known) {
              await admitInvitation(tx, ctx.invitationLimits, {
                workspaceId: workspace.workspaceId,
                email,
                invitedBy: userId,
              });
            }
            const user = await upsertUser(tx, email);
            const invited = await inviteMember(tx, workspace.workspaceId, user.userId, userId);
            const inviter = await tx.query<{ email: string }>(
              'SELECT email FROM expense_internal.users WHERE user_id = $1',
              [userId],
            );
            return { ...invited, workspaceName: workspace.name, inviterEmail: inviter.rows[0]?.email ?? '' };
          },
          // A new invitation is mailed once it committed (not on a replay); a mail that cannot be sent leaves the
          // invitation in place, to be seen at the invitee's next sign-in.
          afterCommit: async (invited) => {
            if (!invited.created) return;
            await ctx.mailer
              .send(
                invitationMail({
                  to: invited.member.email,
                  workspaceName: invited.workspaceName,
                  invitedBy: invited.inviterEmail,
                  consoleUrl: `${ctx.actions.publicUrl}/console/`,
                }),
              )
              .catch((error: unknown) => request.log.warn({ err: error }, 'invitation mail not sent'));
          },
          answer: (result) => ({
            status: result.created ? 201 : 200,
            envelope: success(
              { member: result.member },
              result.member.status === 'invited'
                ? [
                    'The address is invited, not yet a member: it sees no data until its owner signs in (send-code) and accepts the invitation (GET /invitations, then POST /invitations/{workspaceId}/accept). A new invitation is mailed to the address with a link to the console; if the mail does not arrive, the invitee still sees the invitation after signing in.',
                    'Tell the user to ask the invitee to accept; withdraw the invitation with DELETE /workspaces/{workspaceId}/members/{userId}.',
                  ]
                : ['This address is already an active member.'],
              [
                a.listMembers(request.params.workspaceId),
                a.removeMember(request.params.workspaceId, result.member.userId),
              ],
            ),
          }),
        });
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.removeMember),
      schema: {
        tags: ['members'],
        summary:
          "Remove a member (owners only), which revokes all of that member's keys, or withdraw an invitation (touches no key)",
        security: apiKeySecurity,
        params: MemberParamsSchema,
        response: { 204: z.null().describe('Removed'), ...errorResponses },
      },
      handler: async (request, reply) => {
        const { userId } = principalOf(request);
        const target = request.params.userId;
        // A removed member's keys end with the removal (all of them: a key reaches every workspace of its user).
        await ctx.keyStore.transaction(async (tx, revoke) => {
          const workspace = await requireOwner(tx, userId, request.params.workspaceId, true);
          const outcome = await removeMember(tx, workspace.workspaceId, target);
          if (outcome === 'removed') await revoke({ userId: target, removedFrom: workspace.workspaceId });
        });
        return reply.code(204).send(null);
      },
    });
  };
}
