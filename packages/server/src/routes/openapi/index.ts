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
  doc.paths = paths;
  doc.servers = [{ url: publicUrl }];
  return doc;
}

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
