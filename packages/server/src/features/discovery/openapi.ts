import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';

type OpenApiDocument = Record<string, unknown> & { paths?: Record<string, Record<string, unknown>> };

/** The generated document, with the servers of this deployment (the sign-in paths on `{auth_url}`). */
export function openApiDocument(
  generated: OpenApiDocument,
  ctx: AppContext,
  prefix: string,
): OpenApiDocument {
  const doc = structuredClone(generated);
  const publicUrl = ctx.actions.publicUrl;
  const authUrl = ctx.actions.authBaseUrl;
  const strip = (path: string) =>
    prefix && path.startsWith(prefix) ? path.slice(prefix.length) || '/' : path;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const local = strip(path);
    if (local.startsWith('/api/agent/')) {
      paths[local] = authUrl === publicUrl ? item : { ...item, servers: [{ url: authUrl }] };
    } else {
      paths[local] = item;
    }
  }
  for (const item of Object.values(paths))
    for (const operation of Object.values(item)) optionalBody(operation);
  paths['/mcp'] = MCP_PATH;
  doc.paths = paths;
  doc.servers = [{ url: publicUrl }];
  const components = (doc.components ?? {}) as { securitySchemes?: Record<string, unknown> };
  components.securitySchemes = { ...components.securitySchemes, Bearer: BEARER_SCHEME };
  doc.components = components;
  return doc;
}

type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } };

/**
 * A body the route takes as absent, empty or null (a schema `.nullish()`, e.g. a revert's `{dryRun?}`) is generated
 * as a required `anyOf [object, null]`; it is described as what it is: an optional object.
 */
function optionalBody(operation: unknown): void {
  const body = (operation as Operation | null)?.requestBody;
  if (!body?.content) return;
  for (const media of Object.values(body.content)) {
    const variants = (media.schema as { anyOf?: { type?: unknown }[] } | undefined)?.anyOf;
    if (!variants?.some((v) => v.type === 'null')) continue;
    const rest = variants.filter((v) => v.type !== 'null');
    media.schema = rest.length === 1 ? rest[0] : { anyOf: rest };
    body.required = false;
  }
}

/** /mcp's Bearer scheme: an ApiKey, or an OAuth 2.1 access token (the server is its own authorization server). */
const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  description:
    'On /mcp: `Authorization: Bearer <key>`, an ApiKey or an OAuth 2.1 access token (RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp; authorization server metadata at /.well-known/oauth-authorization-server). `ApiKey <key>` is accepted too.',
};

/** The MCP endpoint, described for agents that read this document first (docs/mcp.md has the tools). */
const MCP_PATH = {
  post: {
    tags: ['mcp'],
    summary:
      'Model Context Protocol over Streamable HTTP (stateless): the same service as tools (list_workspaces, get_schema, query, execute, history, revert, get_guide, report)',
    description:
      'One JSON-RPC message per request (batches are refused); each spends one request of the key\'s rate limit. Without valid credentials: 401 with `WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"`. GET /v1/guide/mcp explains the tools.',
    security: [{ Bearer: [] }, { ApiKey: [] }],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['jsonrpc', 'method'],
            properties: {
              jsonrpc: { const: '2.0' },
              id: { type: ['string', 'integer'] },
              method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call'] },
              params: { type: 'object' },
            },
          },
        },
      },
    },
    parameters: [
      {
        name: 'Accept',
        in: 'header',
        required: true,
        schema: { type: 'string', const: 'application/json, text/event-stream' },
      },
    ],
    responses: {
      '200': {
        description: 'The JSON-RPC response (application/json or one text/event-stream event)',
      },
      '202': { description: 'A notification or response was accepted' },
      '400': { description: 'Not one JSON-RPC message (a batch, or malformed)' },
      '401': { description: 'Missing or invalid credentials; WWW-Authenticate names the resource metadata' },
      '429': { description: 'rate_limited: the key spent its requests (Retry-After)' },
    },
  },
};

/** GET /v1/openapi.json and its alias /v1/swagger.json. */
export function openApiRoutes(
  ctx: AppContext,
  generate: () => OpenApiDocument,
  prefix: string,
): FastifyPluginAsyncZod {
  return async (app) => {
    const schema = {
      tags: ['discovery'],
      summary: 'This OpenAPI 3.1 document',
      response: { 200: z.record(z.string(), z.unknown()) },
    };
    const handler = async () => openApiDocument(generate(), ctx, prefix);
    app.get('/openapi.json', { schema }, handler);
    app.get('/swagger.json', { schema }, handler);
  };
}
