import { createHmac } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { isApiError } from '../../../platform/http/api-error.js';
import { originOf, requireSameOrigin, sendPage } from '../../../platform/http/browser-pages.js';
import { refuseBeyondKeyCaps } from '../../auth/key-caps.js';
import { signInUrl } from '../../console/session.js';
import { listWorkspaces } from '../../workspaces/store.js';
import { equalStrings } from '../client-auth.js';
import { OAuthError } from '../errors.js';
import { AuthorizeQuerySchema, ConsentFormSchema, ConsentQuerySchema, parseForm } from '../forms.js';
import { consentPage, continuePage, errorPage, LIFETIMES } from '../pages.js';
import { formTarget, redirectMatches, redirectUrl } from '../redirects.js';
import { consoleSession } from '../session.js';
import { createGrant, findClient, findRequest, saveRequest, takeRequest } from '../store.js';
import type { OAuthContext } from './context.js';

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** OAuth pages load nothing; after consent, a form may lead to the client's redirect. */
function htmlReply(reply: FastifyReply, status: number, html: string, formTargets: string[] = []) {
  return sendPage(reply, status, html, { ownFiles: false, formTargets });
}

/** The authorization endpoint (RFC 6749 §4.1.1, PKCE required) and the consent page a person decides on. */
export function authorizeRoutes({
  ctx,
  issuer,
  resource,
  findClient: clientFor,
}: OAuthContext): FastifyPluginAsync {
  return async (app) => {
    // A malformed query or form (a parameter given twice) and a cross-site form are answered with an error page.
    app.setErrorHandler((error, _request, reply) => {
      if (isApiError(error) && error.code === 'forbidden') {
        const text = `${error.message} ${error.options.hint ?? ''}`.trim();
        return htmlReply(reply, error.status, errorPage('Refused', text));
      }
      if (!(error instanceof OAuthError)) throw error;
      return htmlReply(reply, 400, errorPage('Invalid request', `${error.error}: ${error.description}`));
    });

    const redirectWith = (reply: FastifyReply, redirectUri: string, params: Record<string, string | null>) =>
      reply.header('cache-control', 'no-store').redirect(redirectUrl(redirectUri, issuer(), params), 303);

    app.get('/oauth/authorize', { schema: { hide: true } }, async (request, reply) => {
      const q = parseForm(AuthorizeQuerySchema, request.query);
      const client = q.client_id ? await clientFor(q.client_id) : undefined;
      if (!client) {
        return htmlReply(
          reply,
          400,
          errorPage(
            'Unknown application',
            'invalid_client: this application is not registered here (any more). Go back to it and connect again; it registers anew.',
          ),
        );
      }
      const redirectUri =
        q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
      if (!redirectUri || !client.redirectUris.some((r) => redirectMatches(r, redirectUri))) {
        return htmlReply(
          reply,
          400,
          errorPage(
            'Wrong redirect address',
            'invalid_request: the redirect_uri is not one this application registered.',
          ),
        );
      }
      // From here on, errors go back to the client (RFC 6749 §4.1.2.1).
      const state = q.state ?? null;
      const fail = (error: string, description: string) =>
        redirectWith(reply, redirectUri, { error, error_description: description, state });
      if (q.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code.');
      if (!q.code_challenge || q.code_challenge_method !== 'S256' || !PKCE_CHALLENGE.test(q.code_challenge)) {
        return fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256.');
      }
      const wanted = q.resource ?? resource();
      if (wanted.replace(/\/$/, '') !== resource()) {
        return fail('invalid_target', `This server issues tokens for ${resource()} only.`);
      }
      const requestId = await saveRequest(ctx.db, {
        clientId: client.clientId,
        redirectUri,
        codeChallenge: q.code_challenge,
        state,
        resource: resource(),
        scope: q.scope ?? '',
      });
      // The client's link is a cross-site navigation, which carries no SameSite=Strict cookie: continue on a
      // page of this origin, whose navigation does.
      return htmlReply(reply, 200, continuePage(`${app.prefix}/oauth/consent?request=${requestId}`));
    });

    const csrfFor = (sessionKey: string, requestId: string) =>
      createHmac('sha256', sessionKey).update(`oauth-consent:${requestId}`).digest('base64url');

    app.get('/oauth/consent', { schema: { hide: true } }, async (request, reply) => {
      const q = parseForm(ConsentQuerySchema, request.query);
      const pending = await findRequest(ctx.db, q.request ?? '');
      if (!pending) {
        return htmlReply(
          reply,
          400,
          errorPage(
            'Request expired',
            'This connection request is unknown or older than 10 minutes. Start again from the application.',
          ),
        );
      }
      const session = await consoleSession(ctx, request);
      if (!session) {
        return reply.redirect(
          signInUrl(`${app.prefix}/oauth/consent?request=${pending.requestId}`, app.prefix),
          303,
        );
      }
      const client = await findClient(ctx.db, pending.clientId);
      if (!client) return htmlReply(reply, 400, errorPage('Unknown application', 'invalid_client'));
      const { rows } = await ctx.db.query<{ email: string }>(
        'SELECT email FROM expense_internal.users WHERE user_id = $1',
        [session.principal.userId],
      );
      const workspaces = await listWorkspaces(
        ctx.db,
        session.principal.userId,
        session.principal.connectionId,
      );
      const scopes = pending.scope.split(/\s+/);
      return htmlReply(
        reply,
        200,
        consentPage({
          action: `${app.prefix}/oauth/consent`,
          requestId: pending.requestId,
          csrf: csrfFor(session.sessionKey, pending.requestId),
          clientName: client.clientName,
          clientId: client.clientId,
          redirectHost: new URL(pending.redirectUri).host || pending.redirectUri,
          userEmail: rows[0]?.email ?? '',
          workspaces: workspaces.map((w) => ({ workspaceId: w.workspaceId, name: w.name })),
          readOnlyRequested: scopes.includes('expense:read') && !scopes.includes('expense:write'),
        }),
        // The form's answer redirects to the client, which form-action must allow.
        [formTarget(pending.redirectUri)],
      );
    });

    const alreadyDecided = (reply: FastifyReply) =>
      htmlReply(reply, 400, errorPage('Already decided', 'This request was already answered.'));

    app.post('/oauth/consent', { schema: { hide: true } }, async (request, reply) => {
      // Cross-site request forgery fails twice: the same-origin rule here, the CSRF token below.
      requireSameOrigin(request, originOf(ctx.actions.publicUrl));
      const form = parseForm(ConsentFormSchema, request.body);
      const session = await consoleSession(ctx, request);
      const pending = await findRequest(ctx.db, form.request ?? '');
      if (!session || !pending) {
        return htmlReply(
          reply,
          400,
          errorPage('Request expired', 'Sign in and start again from the application.'),
        );
      }
      if (!form.csrf || !equalStrings(form.csrf, csrfFor(session.sessionKey, pending.requestId))) {
        return htmlReply(
          reply,
          403,
          errorPage('Refused', 'The form is stale: reload the page and decide again.'),
        );
      }
      if (form.decision !== 'approve') {
        if (!(await takeRequest(ctx.db, pending.requestId))) return alreadyDecided(reply);
        return redirectWith(reply, pending.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied access.',
          state: pending.state,
        });
      }
      const access =
        form.access === 'read' ? 'read' : form.access === 'read_write' ? 'read_write' : undefined;
      const lifetime = LIFETIMES.find((l) => l.value === form.lifetime);
      let workspaceId: string | null = null;
      if (form.workspace && form.workspace !== 'all') {
        const mine = await listWorkspaces(ctx.db, session.principal.userId, session.principal.connectionId);
        workspaceId = mine.find((w) => w.workspaceId === form.workspace)?.workspaceId ?? '';
      }
      if (!access || !lifetime || workspaceId === '') {
        return htmlReply(
          reply,
          400,
          errorPage('Invalid choice', 'Choose an access level, workspace and lifetime offered.'),
        );
      }
      const userId = session.principal.userId;
      let code: string | undefined;
      try {
        // A grant is a key: the user's key caps hold, in the transaction that uses up the request (a refused
        // consent keeps it, so the user may revoke a key and decide again).
        code = await ctx.db.transaction(async (tx) => {
          await refuseBeyondKeyCaps(tx, userId);
          if (!(await takeRequest(tx, pending.requestId))) return undefined;
          return createGrant(
            tx,
            {
              clientId: pending.clientId,
              userId,
              resource: pending.resource,
              access,
              workspaceId,
              expiresAt: new Date(Date.now() + Number(lifetime.value) * 86_400_000),
            },
            { redirectUri: pending.redirectUri, codeChallenge: pending.codeChallenge },
          );
        });
      } catch (error) {
        if (!isApiError(error) || error.code !== 'rate_limited') throw error;
        for (const [name, value] of Object.entries(error.options.headers ?? {})) reply.header(name, value);
        return htmlReply(
          reply,
          429,
          errorPage(
            'Too many keys',
            `${error.message} Revoke keys and connections you no longer use on the console's Keys page, or wait an hour, then decide again.`,
          ),
        );
      }
      if (code === undefined) return alreadyDecided(reply);
      return redirectWith(reply, pending.redirectUri, { code, state: pending.state });
    });
  };
}
