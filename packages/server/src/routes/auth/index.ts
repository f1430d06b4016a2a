import {
  AGENT_ROUTES,
  fastifyRoute,
  SendCodeBodySchema,
  SendCodeDataSchema,
  VerifyCodeBodySchema,
  VerifyCodeDataSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { success } from '../../http/envelope.js';
import { responses } from '../responses.js';

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
        // An IPv6 client counts as its /64 (ratelimit/client-address.ts).
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
        return success(
          data,
          [
            'Store the ApiKey outside chat memory now (e.g. a local env file: EXPENSE_API_KEY=...); it is shown only once.',
            'Send it on every call as "Authorization: ApiKey <key>".',
            'Next call GET /me, then GET /workspaces.',
          ],
          [ctx.actions.me(), ctx.actions.listWorkspaces()],
        );
      },
    });
  };
}
