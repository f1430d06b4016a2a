import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { isApiError } from '../../platform/http/api-error.js';
import {
  originOf,
  type PagePolicy,
  requireSameOrigin,
  sendPage,
  setPageHeaders,
} from '../../platform/http/browser-pages.js';
import { BODY_LIMIT } from '../../platform/http/http-basics.js';
import { consoleAssetsDirectory, VENDOR_FILES, vendorRoots } from './assets.js';
import { appShell, codePage, emailPage, isSignInNotice, type PageProblem } from './pages.js';
import { proxyToApi } from './proxy.js';
import { ROUTES_MODULE, ROUTES_MODULE_PATH } from './routes-module.js';
import {
  CONSOLE_PATH,
  CONSOLE_SESSION_HOURS,
  clearSessionCookie,
  consoleNoticeCookieName,
  readConsoleSession,
  redirectToSignIn,
  safeReturnTo,
  sessionCookieOptions,
  sessionKeyOf,
  setSessionCookie,
} from './session.js';
import { signInHint, WORDS_MODULE, WORDS_MODULE_PATH } from './words.js';

/** The console's files a browser loads: scripts (with their source maps) and styles. */
const SERVED_ASSET = /^\/[\w/-]+(?<!\.d)\.(?:js|js\.map|css)$/;

/** The console's pages load this origin's files (script, stylesheet, images) and call its API. */
const CONSOLE_PAGES: PagePolicy = { ownFiles: true };

/** The label of a console session's key in the key list. */
export const CONSOLE_KEY_LABEL = 'Console session';

type SignInBody = Partial<Record<'email' | 'code' | 'otp_session_token' | 'return_to', string>>;
type SignOutBody = Partial<Record<'reason', string>>;

function problemOf(
  error: unknown,
  reply: FastifyReply,
): { status: number; problem: PageProblem } | undefined {
  if (!isApiError(error)) return undefined;
  for (const [name, value] of Object.entries(error.options.headers ?? {})) reply.header(name, value);
  return {
    status: error.status,
    problem: {
      message: error.message,
      hint: signInHint(error.received()),
    },
  };
}

/**
 * The web console under `/console`: server-rendered sign-in, the application shell and its static files,
 * and `/console/api/*`, a same-origin proxy to the `/v1` routes with the session's key (docs/console.md).
 */
export function consoleRoutes(ctx: AppContext, root: () => FastifyInstance): FastifyPluginAsync {
  return async (app) => {
    const prefix = app.prefix;
    const base = `${prefix}${CONSOLE_PATH}`;
    // The console's routes are pages and a proxy, not API routes: they stay out of the OpenAPI document.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });

    // Decided by the route Fastify matched, never by the raw URL: `/%63onsole/sign-out` is this sign-out route
    // too, and gets the same headers and Origin check.
    app.addHook('onRequest', async (request, reply) => {
      if (!request.routeOptions.url?.startsWith(base)) return;
      setPageHeaders(reply, CONSOLE_PAGES);
      requireSameOrigin(request, originOf(ctx.actions.publicUrl));
    });

    // Before the assets' wildcard: a route of its own wins over it.
    app.get(`${CONSOLE_PATH}${ROUTES_MODULE_PATH}`, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').send(ROUTES_MODULE),
    );
    app.get(`${CONSOLE_PATH}${WORDS_MODULE_PATH}`, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').send(WORDS_MODULE),
    );
    await app.register(fastifyStatic, {
      root: consoleAssetsDirectory(),
      prefix: `${CONSOLE_PATH}/assets/`,
      decorateReply: false,
      index: false,
      // What the pages load, not what sits beside them (the type check's tsconfig.json and .d.ts files).
      allowedPath: (path) => SERVED_ASSET.test(path),
    });
    await app.register(fastifyStatic, {
      root: vendorRoots(),
      prefix: `${CONSOLE_PATH}/vendor/`,
      decorateReply: false,
      index: false,
      allowedPath: (path) => (VENDOR_FILES as readonly string[]).includes(path.replace(/^\//, '')),
    });

    app.get(CONSOLE_PATH, async (_request, reply) => reply.redirect(`${base}/`, 303));

    app.get(`${CONSOLE_PATH}/`, async (request, reply) => {
      if (!(await readConsoleSession(ctx, request))) return redirectToSignIn(reply, request, prefix);
      return sendPage(reply, 200, appShell(base));
    });

    app.get<{ Querystring: { return_to?: string } }>(`${CONSOLE_PATH}/sign-in`, async (request, reply) => {
      // A notice left by sign-out (the account was deleted) is shown once.
      const noticeCookie = consoleNoticeCookieName(ctx.config.publicUrl);
      const notice = request.cookies[noticeCookie];
      if (notice !== undefined) {
        reply.setCookie(noticeCookie, '', sessionCookieOptions(ctx.config.publicUrl, 0));
      }
      const returnTo = safeReturnTo(request.query.return_to, prefix);
      return sendPage(
        reply,
        200,
        emailPage(base, returnTo, undefined, '', isSignInNotice(notice) ? notice : undefined),
      );
    });

    app.post<{ Body: SignInBody }>(`${CONSOLE_PATH}/sign-in`, async (request, reply) => {
      const body = request.body ?? {};
      const returnTo = safeReturnTo(body.return_to, prefix);
      const email = (body.email ?? '').trim();
      if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
        const problem = {
          message: 'This is not an e-mail address.',
          hint: signInHint({ code: 'invalid_email' }),
        };
        return sendPage(reply, 400, emailPage(base, returnTo, problem, email));
      }
      try {
        const sent = await ctx.otp.sendCode(email, request.ip);
        return sendPage(reply, 200, codePage(base, returnTo, email, sent.otpSessionToken));
      } catch (error) {
        const p = problemOf(error, reply);
        if (!p) throw error;
        return sendPage(reply, p.status, emailPage(base, returnTo, p.problem, email));
      }
    });

    app.post<{ Body: SignInBody }>(`${CONSOLE_PATH}/sign-in/code`, async (request, reply) => {
      const body = request.body ?? {};
      const returnTo = safeReturnTo(body.return_to, prefix);
      const email = body.email ?? '';
      const token = body.otp_session_token ?? '';
      const code = (body.code ?? '').trim();
      if (!/^[0-9]{8}$/.test(code) || token.length === 0 || token.length > 200) {
        const problem = { message: 'The code is 8 digits.', hint: 'Type the 8 digits from the e-mail.' };
        return sendPage(reply, 400, codePage(base, returnTo, email, token, problem));
      }
      try {
        const signedIn = await ctx.otp.verifyCode(
          { code, otpSessionToken: token, label: CONSOLE_KEY_LABEL },
          { kind: 'console', expiresAt: new Date(Date.now() + CONSOLE_SESSION_HOURS * 3_600_000) },
        );
        setSessionCookie(reply, ctx.config.publicUrl, signedIn.apiKey);
        return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
      } catch (error) {
        const p = problemOf(error, reply);
        if (!p) throw error;
        if (isApiError(error) && error.code !== 'invalid_code' && error.code !== 'rate_limited') {
          // The sign-in session is void or expired: start again.
          return sendPage(reply, p.status, emailPage(base, returnTo, p.problem, email));
        }
        return sendPage(reply, p.status, codePage(base, returnTo, email, token, p.problem));
      }
    });

    app.post<{ Body: SignOutBody }>(`${CONSOLE_PATH}/sign-out`, async (request, reply) => {
      const ended = await signOut(ctx, request);
      clearSessionCookie(reply, ctx.config.publicUrl);
      // After the console deleted the account, its session's key is gone: the sign-in page says so. Only then
      // (the key in the cookie no longer works), so a live session cannot have it said.
      if (request.body?.reason === 'account_deleted' && ended === 'gone') {
        reply.setCookie(
          consoleNoticeCookieName(ctx.config.publicUrl),
          'account_deleted',
          sessionCookieOptions(ctx.config.publicUrl, 60),
        );
      }
      return reply.redirect(`${base}/sign-in`, 303);
    });

    await app.register(async (api) => {
      // The API validates the body; the proxy passes it on as it came.
      api.removeAllContentTypeParsers();
      api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
        done(null, body),
      );
      api.all(`${CONSOLE_PATH}/api/*`, async (request, reply) =>
        proxyToApi(ctx, root(), `${prefix}/v1`, `${base}/api`, request, reply),
      );
    });
  };
}

/**
 * Revokes the session's key through the key store: this process's cache forgets it in the same call, and the
 * database announces the revocation to every other process. `revoked`: it was live and is revoked now; `gone`: the
 * cookie held a key that no longer works (revoked, expired, or deleted with its account); `none`: no key.
 */
async function signOut(ctx: AppContext, request: FastifyRequest): Promise<'revoked' | 'gone' | 'none'> {
  if (!sessionKeyOf(ctx, request)) return 'none';
  const principal = await readConsoleSession(ctx, request);
  if (!principal) return 'gone';
  await ctx.keyStore.revoke({ connectionId: principal.connectionId, kind: 'console' });
  return 'revoked';
}
