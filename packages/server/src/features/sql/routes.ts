import {
  API_ROUTES,
  fastifyRoute,
  SqlExecuteBodySchema,
  SqlQueryBodySchema,
  SqlResultDataSchema,
  WORKSPACE_HEADER,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { idempotencyHeaderSchema } from '../../platform/idempotency/owner-write.js';
import { sendAnswer } from '../../platform/idempotency/write.js';
import { principalOf } from '../auth/authenticate.js';
import { changeGroupHeaders } from '../changes/group.js';
import { clientGone } from './deadline.js';
import { sqlKeyAccess } from './service.js';

const workspaceHeader = {
  [WORKSPACE_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe("Run in this workspace instead of the key's saved one (membership is checked)."),
};
const writeHeaders = z.object({ ...workspaceHeader, ...idempotencyHeaderSchema, ...changeGroupHeaders });

const endpoints = [
  {
    route: API_ROUTES.sqlQuery,
    body: SqlQueryBodySchema.strict(),
    headers: z.object(workspaceHeader),
    summary: 'Run exactly one read-only SELECT (WITH ... SELECT included) in a READ ONLY transaction',
  },
  {
    route: API_ROUTES.sqlExecute,
    body: SqlExecuteBodySchema.strict(),
    headers: writeHeaders,
    summary: 'Run exactly one INSERT, UPDATE or DELETE (WITH forms included); dryRun rolls back',
  },
  {
    route: API_ROUTES.sqlScript,
    body: SqlExecuteBodySchema.strict(),
    headers: writeHeaders,
    summary: 'Run one or more statements atomically (all or nothing); dryRun rolls back',
  },
] as const;

/** POST /v1/sql/query, /v1/sql/execute and /v1/sql: parse, hand to the app's SqlService (service.ts), send. */
export function sqlRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    for (const endpoint of endpoints) {
      const { path } = endpoint.route;
      app.route({
        ...fastifyRoute(endpoint.route),
        config: { keyAccess: sqlKeyAccess(path) },
        schema: {
          tags: ['sql'],
          summary: endpoint.summary,
          security: apiKeySecurity,
          headers: endpoint.headers,
          body: endpoint.body,
          response: responses(200, SqlResultDataSchema),
        },
        handler: async (request, reply) => {
          const answer = await ctx.sql.run(path, {
            principal: principalOf(request),
            headers: request.headers,
            body: request.body,
            arrivedAt: Date.now() - reply.elapsedTime,
            signal: clientGone(reply.raw),
            requestId: request.id,
            log: request.log,
          });
          sendAnswer(reply, answer);
        },
      });
    }
  };
}
