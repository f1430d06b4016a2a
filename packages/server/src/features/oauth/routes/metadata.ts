import type { FastifyPluginAsync } from 'fastify';
import { SCOPES } from '../scopes.js';
import type { OAuthContext } from './context.js';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The authorization server's metadata (RFC 8414). */
export function metadataRoutes({ issuer }: OAuthContext): FastifyPluginAsync {
  return async (app) => {
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
  };
}
