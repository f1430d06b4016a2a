import { createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { checkClient, clientCredentials, equalStrings } from '../client-auth.js';
import { OAuthError, sendOAuthError } from '../errors.js';
import { type Form, parseForm, RevokeFormSchema, TokenFormSchema } from '../forms.js';
import {
  type Grant,
  grantOfToken,
  issueTokens,
  type OAuthClient,
  redeemCode,
  redeemRefreshToken,
} from '../store.js';
import type { OAuthContext } from './context.js';

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** The token endpoint (RFC 6749 §3.2: codes and refresh tokens) and token revocation (RFC 7009). */
export function tokenRoutes({ ctx, resource, findClient }: OAuthContext): FastifyPluginAsync {
  return async (app) => {
    app.setErrorHandler((error, _request, reply) => {
      if (!(error instanceof OAuthError)) throw error;
      return sendOAuthError(reply, error);
    });

    /** Client authentication at both endpoints (RFC 6749 §2.3, RFC 7591). */
    async function authenticate(
      request: FastifyRequest,
      body: { client_id?: string | undefined; client_secret?: string | undefined },
    ): Promise<OAuthClient> {
      const credentials = clientCredentials(request.headers.authorization, body);
      return checkClient(
        credentials.clientId ? await findClient(credentials.clientId) : undefined,
        credentials,
      );
    }

    /** A code or refresh token presented twice: whoever holds it may be an attacker, so the grant ends. */
    const endGrant = (grant: Grant) => ctx.keyStore.revoke({ grantId: grant.grantId });

    async function grantOfCode(form: Form<typeof TokenFormSchema>, client: OAuthClient): Promise<Grant> {
      const found = await redeemCode(ctx.db, form.code ?? '');
      if (found.kind === 'replayed') {
        await endGrant(found.grant); // RFC 6749 §4.1.2
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
      return found.grant;
    }

    async function grantOfRefreshToken(
      form: Form<typeof TokenFormSchema>,
      client: OAuthClient,
    ): Promise<Grant> {
      const found = await redeemRefreshToken(ctx.db, form.refresh_token ?? '');
      if (found.kind === 'reused') {
        await endGrant(found.grant); // a rotated refresh token presented again leaked (OAuth 2.1 §4.3.1)
        throw new OAuthError(
          'invalid_grant',
          'The refresh token was already used; the connection is revoked.',
        );
      }
      if (found.kind !== 'ok') throw new OAuthError('invalid_grant', 'The refresh token is unknown.');
      if (found.grant.clientId !== client.clientId)
        throw new OAuthError('invalid_grant', 'The token belongs to another client.');
      return found.grant;
    }

    app.post('/oauth/token', { schema: { hide: true } }, async (request, reply) => {
      const form = parseForm(TokenFormSchema, request.body);
      const client = await authenticate(request, form);
      if (form.resource !== undefined && form.resource.replace(/\/$/, '') !== resource()) {
        throw new OAuthError('invalid_target', `This server issues tokens for ${resource()} only.`);
      }
      let grant: Grant;
      if (form.grant_type === 'authorization_code') grant = await grantOfCode(form, client);
      else if (form.grant_type === 'refresh_token') grant = await grantOfRefreshToken(form, client);
      else throw new OAuthError('unsupported_grant_type', 'Use authorization_code or refresh_token.');
      if (grant.revokedAt || grant.expiresAt.getTime() <= Date.now()) {
        throw new OAuthError('invalid_grant', 'The connection was revoked or has expired: authorize again.');
      }
      const tokens = await issueTokens(ctx.db, grant, client.clientName);
      // The key got a new secret in place: the old one must not stay in this process's cache.
      ctx.keys.invalidate({ connectionId: tokens.connectionId });
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return {
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: tokens.expiresIn,
        ...(tokens.refreshToken ? { refresh_token: tokens.refreshToken } : {}),
        scope: grant.access === 'read' ? 'expense:read' : 'expense:read expense:write',
      };
    });

    // RFC 7009: revoking an access or refresh token ends the whole grant; unknown tokens answer 200 too.
    app.post('/oauth/revoke', { schema: { hide: true } }, async (request, reply) => {
      const form = parseForm(RevokeFormSchema, request.body);
      const client = await authenticate(request, form);
      if (!form.token) throw new OAuthError('invalid_request', 'token is required.');
      const grant = await grantOfToken(ctx.db, form.token);
      if (grant && grant.clientId === client.clientId) await endGrant(grant);
      return reply.code(200).header('cache-control', 'no-store').send();
    });
  };
}
