import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { mcpResource } from '../auth/consent.js';
import { refuseBeyondKeyCaps } from '../auth/key-caps.js';
import { consumeAll, type Limiter } from '../auth/rate-limits.js';
import { sha256Hex } from '../auth/secrets.js';
import { serverOrigin, signInUrl } from '../console/session.js';
import type { AppContext } from '../context.js';
import { isApiError } from '../http/api-error.js';
import { clientBucket } from '../ratelimit/client-address.js';
import { listWorkspaces } from '../workspaces/store.js';
import { fetchMetadataDocument, isMetadataClientId, type MetadataFetchOptions } from './client-metadata.js';
import { consentPage, continuePage, errorPage, LIFETIMES, pageCsp } from './pages.js';
import { parseRegistration, RegistrationError } from './registration.js';
import { consoleSession } from './session.js';
import {
  type AuthMethod,
  createGrant,
  findClient,
  findRequest,
  grantOfToken,
  issueTokens,
  newSecret,
  type OAuthClient,
  redeemCode,
  redeemRefreshToken,
  revokeGrant,
  saveClient,
  saveRequest,
  takeRequest,
} from './store.js';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
/** A fetched client metadata document is trusted this long before it is read again. */
const METADATA_CACHE_MS = 60 * 60_000;
const FORM_LIMIT = 64 * 1024;
/** Scopes this server understands; any other (e.g. `openid`) is ignored, not refused. */
export const SCOPES = ['expense:read', 'expense:write'] as const;

type Form = Record<string, string | undefined>;

/** A browser or client form (application/x-www-form-urlencoded) as single values per name. */
function formOf(body: unknown): Form {
  const out: Form = {};
  if (!body || typeof body !== 'object') return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (typeof value === 'string') out[k] = value;
  }
  return out;
}

class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

function sendOAuthError(reply: FastifyReply, e: OAuthError): FastifyReply {
  reply.code(e.status).header('cache-control', 'no-store').type('application/json; charset=utf-8');
  if (e.status === 401) reply.header('www-authenticate', 'Basic realm="expense"');
  return reply.send({ error: e.error, error_description: e.description });
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Loopback redirect URIs match whatever their port (RFC 8252 §7.3); all others match exactly. */
function redirectMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  try {
    const r = new URL(registered);
    const q = new URL(requested);
    const loopback = ['127.0.0.1', '[::1]'].includes(r.hostname) || r.hostname === 'localhost';
    return (
      loopback &&
      r.protocol === 'http:' &&
      q.protocol === 'http:' &&
      r.hostname === q.hostname &&
      r.pathname === q.pathname &&
      r.search === q.search
    );
  } catch {
    return false;
  }
}

/** What a CSP form-action needs to allow the redirect to the client (an origin, or a custom scheme). */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

export interface OAuthOptions {
  metadataFetch: MetadataFetchOptions;
  /** Client registrations per client address (REGISTRATION_LIMIT). */
  registrationLimit: Limiter;
}

/** Registration is unauthenticated: 20 new clients per address and hour keep the table from being flooded. */
export const REGISTRATION_LIMIT = { name: 'oauth-registrations', points: 20, durationSeconds: 3600 } as const;

/** The OAuth 2.1 authorization server for /mcp (docs/mcp.md, docs/security.md). */
export function oauthRoutes(ctx: AppContext, options: OAuthOptions): FastifyPluginAsync {
  return async (app) => {
    const issuer = () => ctx.actions.publicUrl;
    const resource = () => mcpResource(ctx.actions.publicUrl);

    if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: FORM_LIMIT },
        (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
      );
    }

    // Browser-based clients (e.g. an inspector in a web page) call these across origins. They carry no cookie
    // and no ambient authority, so any origin may; the consent pages are never cross-origin readable.
    const CORS_PATHS = new Set([
      AUTHORIZATION_SERVER_METADATA_PATH,
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
    ]);
    app.addHook('onRequest', async (request, reply) => {
      // By the route Fastify matched (any spelling of the path), without the server's prefix.
      if (!CORS_PATHS.has(request.routeOptions.url?.slice(app.prefix.length) ?? '')) return;
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
      reply.header('access-control-allow-headers', 'authorization, content-type, mcp-protocol-version');
      reply.header('access-control-max-age', '86400');
    });
    for (const path of CORS_PATHS) {
      app.options(path, { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
    }

    app.get(AUTHORIZATION_SERVER_METADATA_PATH, { schema: { hide: true } }, async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      const base = issuer();
      return {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        scopes_supported: [...SCOPES],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        service_documentation: `${base}/v1/`,
      };
    });

    /** A registered client, or a metadata document client fetched (again) when its copy is old. */
    async function clientFor(clientId: string): Promise<OAuthClient | undefined> {
      const stored = await findClient(ctx.db, clientId);
      if (!isMetadataClientId(clientId)) return stored?.metadataDocument ? undefined : stored;
      if (stored?.fetchedAt && Date.now() - stored.fetchedAt.getTime() < METADATA_CACHE_MS) return stored;
      let document: unknown;
      try {
        document = await fetchMetadataDocument(clientId, options.metadataFetch);
      } catch (error) {
        app.log.info({ err: error, clientId }, 'oauth: client metadata document not fetched');
        return undefined;
      }
      let parsed: ReturnType<typeof parseRegistration>;
      try {
        parsed = parseRegistration(document);
      } catch {
        return undefined;
      }
      // The document must name itself (draft-ietf-oauth-client-id-metadata-document §4.1).
      if ((document as { client_id?: unknown }).client_id !== clientId || parsed.authMethod !== 'none') {
        return undefined;
      }
      const client: OAuthClient = {
        clientId,
        clientName: parsed.clientName ?? new URL(clientId).host,
        redirectUris: parsed.redirectUris,
        authMethod: 'none',
        secretHash: null,
        metadataDocument: true,
        fetchedAt: new Date(),
      };
      await saveClient(ctx.db, client);
      return client;
    }

    app.post('/oauth/register', { schema: { hide: true } }, async (request, reply) => {
      // Unauthenticated: counted per client address (an IPv6 address as its /64).
      await consumeAll(
        [{ limiter: options.registrationLimit, key: clientBucket(request.ip) }],
        'client registrations',
      );
      let parsed: ReturnType<typeof parseRegistration>;
      try {
        parsed = parseRegistration(request.body);
      } catch (error) {
        if (error instanceof RegistrationError) {
          return sendOAuthError(reply, new OAuthError(error.code, error.message));
        }
        throw error;
      }
      const clientId = `ocl_${newSecret('').slice(0, 32)}`;
      const secret = parsed.authMethod === 'none' ? undefined : newSecret('ocs_');
      await saveClient(ctx.db, {
        clientId,
        clientName: parsed.clientName ?? 'OAuth client',
        redirectUris: parsed.redirectUris,
        authMethod: parsed.authMethod,
        secretHash: secret ? sha256Hex(secret) : null,
        metadataDocument: false,
        fetchedAt: null,
      });
      reply.code(201).header('cache-control', 'no-store');
      return {
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
        client_name: parsed.clientName ?? 'OAuth client',
        redirect_uris: parsed.redirectUris,
        token_endpoint_auth_method: parsed.authMethod,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      };
    });

    function htmlReply(reply: FastifyReply, status: number, html: string, formTargets: string[] = []) {
      return (
        reply
          .code(status)
          .header('content-security-policy', pageCsp(formTargets))
          .header('cache-control', 'no-store')
          .header('x-frame-options', 'DENY')
          // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the consent form's
          // POST, which the Origin check refuses. Cross-origin (the client's redirect) still gets no referrer.
          .header('referrer-policy', 'same-origin')
          .type('text/html; charset=utf-8')
          .send(html)
      );
    }

    function redirectWith(reply: FastifyReply, redirectUri: string, params: Record<string, string | null>) {
      const url = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
      url.searchParams.set('iss', issuer());
      return reply.header('cache-control', 'no-store').redirect(url.toString(), 303);
    }

    app.get('/oauth/authorize', { schema: { hide: true } }, async (request, reply) => {
      const q = formOf(request.query);
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
      if (
        !q.code_challenge ||
        q.code_challenge_method !== 'S256' ||
        !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge)
      ) {
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
      const requestId = formOf(request.query).request ?? '';
      const pending = await findRequest(ctx.db, requestId);
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

    /** A state-changing browser request must come from this origin (CSRF defence besides the token). */
    function sameOrigin(request: FastifyRequest): boolean {
      const origin = request.headers.origin;
      if (typeof origin === 'string') return origin === serverOrigin(ctx);
      return request.headers['sec-fetch-site'] === 'same-origin';
    }

    const alreadyDecided = (reply: FastifyReply) =>
      htmlReply(reply, 400, errorPage('Already decided', 'This request was already answered.'));

    app.post('/oauth/consent', { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request.body);
      if (!sameOrigin(request)) {
        return htmlReply(reply, 403, errorPage('Refused', 'This form must be sent from this site.'));
      }
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

    /** Client authentication at the token and revocation endpoints (RFC 6749 §2.3, RFC 7591). */
    async function authenticateClient(request: FastifyRequest, form: Form): Promise<OAuthClient> {
      let clientId = form.client_id;
      let secret = form.client_secret;
      let method: AuthMethod = secret ? 'client_secret_post' : 'none';
      const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (basic) {
        const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        clientId = decodeURIComponent(decoded.slice(0, colon));
        secret = decodeURIComponent(decoded.slice(colon + 1));
        method = 'client_secret_basic';
      }
      const client = clientId ? await clientFor(clientId) : undefined;
      if (!client) {
        throw new OAuthError('invalid_client', 'Unknown client: register again.', 401);
      }
      if (client.authMethod !== 'none') {
        const ok = secret && client.secretHash && equalStrings(sha256Hex(secret), client.secretHash);
        if (!ok || method === 'none')
          throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
      }
      return client;
    }

    app.post('/oauth/token', { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request.body);
      try {
        const client = await authenticateClient(request, form);
        if (form.resource !== undefined && form.resource.replace(/\/$/, '') !== resource()) {
          throw new OAuthError('invalid_target', `This server issues tokens for ${resource()} only.`);
        }
        let grant: Awaited<ReturnType<typeof grantOfToken>>;
        if (form.grant_type === 'authorization_code') {
          const found = await redeemCode(ctx.db, form.code ?? '');
          if (found.kind === 'replayed') {
            // A code used twice: whoever holds it may be an attacker, so every token from it ends (RFC 6749 §4.1.2).
            for (const id of await revokeGrant(ctx.db, found.grant.grantId))
              ctx.keys.invalidate({ connectionId: id });
            throw new OAuthError('invalid_grant', 'The authorization code was already used.');
          }
          if (found.kind !== 'ok')
            throw new OAuthError('invalid_grant', 'The authorization code is unknown or expired.');
          if (found.grant.clientId !== client.clientId)
            throw new OAuthError('invalid_grant', 'The code belongs to another client.');
          if (form.redirect_uri !== undefined && form.redirect_uri !== found.redirectUri) {
            throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request.');
          }
          if (!form.code_verifier || !equalStrings(s256(form.code_verifier), found.codeChallenge)) {
            throw new OAuthError('invalid_grant', 'The PKCE code_verifier does not match.');
          }
          grant = found.grant;
        } else if (form.grant_type === 'refresh_token') {
          const found = await redeemRefreshToken(ctx.db, form.refresh_token ?? '');
          if (found.kind === 'reused') {
            // A rotated refresh token presented again: it leaked, so the whole grant ends (OAuth 2.1 §4.3.1).
            for (const id of await revokeGrant(ctx.db, found.grant.grantId))
              ctx.keys.invalidate({ connectionId: id });
            throw new OAuthError(
              'invalid_grant',
              'The refresh token was already used; the connection is revoked.',
            );
          }
          if (found.kind !== 'ok') throw new OAuthError('invalid_grant', 'The refresh token is unknown.');
          if (found.grant.clientId !== client.clientId)
            throw new OAuthError('invalid_grant', 'The token belongs to another client.');
          grant = found.grant;
        } else {
          throw new OAuthError('unsupported_grant_type', 'Use authorization_code or refresh_token.');
        }
        if (grant.revokedAt || grant.expiresAt.getTime() <= Date.now()) {
          throw new OAuthError(
            'invalid_grant',
            'The connection was revoked or has expired: authorize again.',
          );
        }
        const tokens = await issueTokens(ctx.db, grant, client.clientName);
        ctx.keys.invalidate({ connectionId: tokens.connectionId });
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        return {
          access_token: tokens.accessToken,
          token_type: 'Bearer',
          expires_in: tokens.expiresIn,
          ...(tokens.refreshToken ? { refresh_token: tokens.refreshToken } : {}),
          scope: grant.access === 'read' ? 'expense:read' : 'expense:read expense:write',
        };
      } catch (error) {
        if (error instanceof OAuthError) return sendOAuthError(reply, error);
        throw error;
      }
    });

    // RFC 7009: revoking an access or refresh token ends the whole grant; unknown tokens answer 200 too.
    app.post('/oauth/revoke', { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request.body);
      try {
        const client = await authenticateClient(request, form);
        if (!form.token) throw new OAuthError('invalid_request', 'token is required.');
        const grant = await grantOfToken(ctx.db, form.token);
        if (grant && grant.clientId === client.clientId) {
          for (const id of await revokeGrant(ctx.db, grant.grantId))
            ctx.keys.invalidate({ connectionId: id });
        }
        return reply.code(200).header('cache-control', 'no-store').send();
      } catch (error) {
        if (error instanceof OAuthError) return sendOAuthError(reply, error);
        throw error;
      }
    });
  };
}
