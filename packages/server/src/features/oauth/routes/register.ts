import type { FastifyPluginAsync } from 'fastify';
import { clientBucket } from '../../../platform/ratelimit/client-address.js';
import { consumeAll } from '../../../platform/ratelimit/limits.js';
import { sha256Hex } from '../../auth/secrets.js';
import { OAuthError, sendOAuthError } from '../errors.js';
import { parseRegistration, RegistrationError } from '../registration.js';
import { newSecret, saveClient } from '../store.js';
import type { OAuthContext } from './context.js';

/** Registration is unauthenticated: 20 new clients per address and hour keep the table from being flooded. */
export const REGISTRATION_LIMIT = { name: 'oauth-registrations', points: 20, durationSeconds: 3600 } as const;

/** Dynamic client registration (RFC 7591). */
export function registerRoutes({ ctx, options }: OAuthContext): FastifyPluginAsync {
  return async (app) => {
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
      const clientName = parsed.clientName ?? 'OAuth client';
      await saveClient(ctx.db, {
        clientId,
        clientName,
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
        client_name: clientName,
        redirect_uris: parsed.redirectUris,
        token_endpoint_auth_method: parsed.authMethod,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      };
    });
  };
}
