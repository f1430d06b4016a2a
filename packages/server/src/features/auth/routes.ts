import {
  type Action,
  AGENT_ROUTES,
  fastifyRoute,
  SendCodeBodySchema,
  SendCodeDataSchema,
  VerifyCodeBodySchema,
  VerifyCodeDataSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { success } from '../../platform/http/envelope.js';
import { responses } from '../../platform/http/responses.js';
import { listWorkspaces } from '../workspaces/store.js';

/**
 * The next step after sign-in, from what the user has: no workspace, create one (its settings asked of the
 * user); exactly one, the SQL endpoints use it without a selection; several, list and select. Fewer calls to the
 * first SQL than GET /me and GET /workspaces first (issue 39).
 */
async function nextAfterSignIn(
  ctx: AppContext,
  userId: string,
  connectionId: string,
): Promise<{ instruction: string; actions: Action[] }> {
  const workspaces = await listWorkspaces(ctx.db, userId, connectionId);
  const a = ctx.actions;
  if (workspaces.length === 0) {
    return {
      instruction:
        'You have no workspace yet: ask the user for its name, reporting currency (ISO 4217, e.g. EUR) and time zone (IANA, e.g. Europe/Berlin), then call create_workspace with {"name", "currency", "timeZone"}. It is then your only workspace and the SQL endpoints use it: read GET /schema and use SQL.',
      actions: [a.createWorkspace(), a.schema()],
    };
  }
  if (workspaces.length === 1) {
    return {
      instruction:
        'You belong to one workspace, and the SQL endpoints use it without selecting it: read GET /schema, then use SQL (GET /workspaces names it).',
      actions: [a.schema(), a.sqlQuery()],
    };
  }
  return { instruction: 'Next call GET /me, then GET /workspaces and select a workspace.', actions: [] };
}

/** The sign-in routes on `{auth_url}`: POST /api/agent/send-code and /api/agent/verify-code. */
export function authRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.route({
      ...fastifyRoute(AGENT_ROUTES.sendCode),
      config: { fieldCodes: { email: 'invalid_email' } },
      schema: {
        tags: ['sign-in'],
        summary: 'E-mail an 8-digit sign-in code (signs up and logs in alike)',
        body: SendCodeBodySchema,
        response: responses(200, SendCodeDataSchema),
      },
      handler: async (request) => {
        // An IPv6 client counts as its /64 (platform/ratelimit/client-address.ts).
        const data = await ctx.otp.sendCode(request.body.email, request.ip);
        return success(
          data,
          [
            'Tell the user a sign-in code was sent, to look in the spam or junk folder if the mail is not visible.',
            'Ask the user for the 8-digit code, then call verify_code with it, this otpSessionToken and a label.',
            'Do not suggest requesting another code right away: mail can take a minute, and codes are limited per hour (an older code stays valid).',
          ],
          [ctx.actions.verifyCode()],
        );
      },
    });

    app.route({
      ...fastifyRoute(AGENT_ROUTES.verifyCode),
      config: { fieldCodes: { label: 'invalid_label' } },
      schema: {
        tags: ['sign-in'],
        summary: 'Exchange the code for a long-lived ApiKey',
        body: VerifyCodeBodySchema,
        response: responses(200, VerifyCodeDataSchema),
      },
      handler: async (request) => {
        const data = await ctx.otp.verifyCode(request.body, { kind: request.body.kind ?? 'agent' });
        const next = await nextAfterSignIn(ctx, data.user.userId, data.connection.connectionId);
        return success(
          data,
          [
            'Store the ApiKey outside chat memory now (e.g. a local env file: EXPENSE_API_KEY=...); it is shown only once.',
            'Send it on every call as "Authorization: ApiKey <key>".',
            next.instruction,
          ],
          [...next.actions, ctx.actions.me(), ctx.actions.listWorkspaces()],
        );
      },
    });
  };
}
