import {
  type Action,
  API_ROUTES,
  type DiscoveryData,
  DiscoveryDataSchema,
  fastifyRoute,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { responses } from '../../platform/http/responses.js';
import { PROTECTED_RESOURCE_PATH } from '../mcp/index.js';
import { DISCOVERY_INSTRUCTIONS } from './instructions.js';
import { loadReadme } from './readme.js';

export const SOURCE_URL = 'https://github.com/expense-dev/expense';

export function discoveryData(ctx: AppContext): DiscoveryData {
  const a = ctx.actions;
  return {
    service: { name: 'expense', version: 'v1' },
    apiBaseUrl: a.baseUrl,
    authBaseUrl: a.authBaseUrl,
    auth: { scheme: 'ApiKey', header: 'Authorization', bootstrapUrl: a.sendCodeUrl },
    docs: {
      openapiUrl: `${a.baseUrl}/openapi.json`,
      readmeUrl: `${a.baseUrl}/readme`,
      guideUrl: `${a.baseUrl}/guide`,
      sourceUrl: SOURCE_URL,
    },
    mcp: {
      url: `${a.publicUrl}/mcp`,
      auth: ['ApiKey', 'Bearer (OAuth 2.1)'],
      resourceMetadataUrl: `${a.publicUrl}${PROTECTED_RESOURCE_PATH}`,
    },
  };
}

/** The MCP endpoint as an action: where an agent that speaks MCP connects, with the key it has. */
export function mcpAction(ctx: AppContext): Action {
  return {
    name: 'connect_mcp',
    method: 'POST',
    url: `${ctx.actions.publicUrl}/mcp`,
    auth: 'ApiKey',
  };
}

const schema = {
  tags: ['discovery'],
  summary: 'Discovery: how an agent signs in and what to call next',
  response: responses(200, DiscoveryDataSchema),
};

/** GET /v1/ and /v1/agent (and GET / on the origin, registered by the app), plus the README. */
export function discoveryRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const handler = async () =>
      success(discoveryData(ctx), DISCOVERY_INSTRUCTIONS, [
        ctx.actions.sendCode(),
        ctx.actions.verifyCode(),
        ctx.actions.createWorkspace(),
        mcpAction(ctx),
      ]);
    app.route({ ...fastifyRoute(API_ROUTES.discovery), schema, handler });
    // An alias of discovery, for agents that guess the name (not in the route table: no client calls it).
    app.get('/agent', { schema }, handler);

    const readme = loadReadme();
    app.get(
      '/readme',
      {
        schema: {
          tags: ['discovery'],
          summary: 'The project README (Markdown)',
          produces: ['text/markdown'],
          response: { 200: z.string(), '4xx': z.unknown() },
        },
      },
      async (_request, reply) => {
        if (readme === undefined)
          throw new ApiError('not_found', 'The README is not installed with this server.');
        return reply.type('text/markdown; charset=utf-8').send(readme);
      },
    );
  };
}

export { schema as discoverySchema };
