import fastifyFormbody from '@fastify/formbody';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../../context.js';
import { mcpResource } from '../../auth/consent.js';
import { clientFinder } from '../clients.js';
import { FORM_LIMIT } from '../forms.js';
import { authorizeRoutes } from './authorize.js';
import type { OAuthContext, OAuthOptions } from './context.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, metadataRoutes } from './metadata.js';
import { registerRoutes } from './register.js';
import { tokenRoutes } from './token.js';

export { REGISTRATION_LIMIT } from './register.js';

/**
 * Browser-based clients (e.g. an inspector in a web page) call these across origins. They carry no cookie and
 * no ambient authority, so any origin may; the consent pages are never cross-origin readable.
 */
const CORS_PATHS = new Set([
  AUTHORIZATION_SERVER_METADATA_PATH,
  '/oauth/register',
  '/oauth/token',
  '/oauth/revoke',
]);

/** The OAuth 2.1 authorization server for /mcp (docs/mcp.md, docs/security.md). */
export function oauthRoutes(ctx: AppContext, options: OAuthOptions): FastifyPluginAsync {
  return async (app) => {
    const oauth: OAuthContext = {
      ctx,
      options,
      issuer: () => ctx.actions.publicUrl,
      resource: () => mcpResource(ctx.actions.publicUrl),
      findClient: clientFinder(ctx.db, options.metadataFetch, app.log),
    };
    await app.register(fastifyFormbody, { bodyLimit: FORM_LIMIT });

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

    await app.register(metadataRoutes(oauth));
    await app.register(registerRoutes(oauth));
    await app.register(authorizeRoutes(oauth));
    await app.register(tokenRoutes(oauth));
  };
}
