import { API_ROUTES, fastifyRoute, HealthDataSchema } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { responses } from '../../platform/http/responses.js';

/** GET /v1/healthz (the process answers) and /v1/readyz (and the database answers). */
export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.route({
      ...fastifyRoute(API_ROUTES.health),
      schema: { tags: ['health'], summary: 'Liveness', response: responses(200, HealthDataSchema) },
      handler: async () => success({ status: 'ok' as const }),
    });
    app.route({
      ...fastifyRoute(API_ROUTES.ready),
      schema: {
        tags: ['health'],
        summary: 'Readiness, including the database',
        response: responses(200, HealthDataSchema),
      },
      handler: async () => {
        try {
          await ctx.db.ping();
        } catch (cause) {
          throw new ApiError('database_unavailable', 'The database is not answering.', { cause });
        }
        return success({ status: 'ok' as const, database: 'ok' as const });
      },
    });
  };
}
