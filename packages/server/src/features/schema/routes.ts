import { defaultLimits, expenseDialect } from '@expense/sql-guard';
import {
  API_ROUTES,
  fastifyRoute,
  SchemaDataSchema,
  WORKSPACE_HEADER,
  WORKSPACE_NAME_MAX_LENGTH,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { describeRelations } from '../../platform/storage/index.js';
import { RECIPES, relationHints } from '../../platform/storage/relation-hints.js';
import { principalOf } from '../auth/authenticate.js';
import { coverageHints } from '../fx/coverage.js';
import { workspaceClock } from '../workspaces/time-zone.js';
import { SQL_RULES, sqlTimeZoneSentence } from './hints.js';

/** GET /v1/schema: the relations from the live catalog, with hints, functions, rules and limits. */
export function schemaRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const hints = relationHints(ctx.config.fxDays);
    app.route({
      ...fastifyRoute(API_ROUTES.schema),
      schema: {
        tags: ['schema'],
        summary: 'The relations SQL can reach, their columns, and hints on how to write them',
        security: apiKeySecurity,
        headers: z.object({
          [WORKSPACE_HEADER.toLowerCase()]: z
            .string()
            .optional()
            .describe("Whose clock to show: this workspace instead of the key's saved one."),
        }),
        response: responses(200, SchemaDataSchema),
      },
      handler: async (request) => {
        const [described, clock, coverage] = await Promise.all([
          describeRelations(ctx.db, hints),
          workspaceClock(ctx.db, principalOf(request), request.headers['x-workspace-id']),
          ctx.fxCoverage.get(),
        ]);
        const held = coverageHints(coverage, clock.today);
        const relations = described.map((r) =>
          r.name === 'fx_rates_raw' || r.name === 'fx_rates_daily'
            ? { ...r, hints: [...held, ...r.hints] }
            : r,
        );
        return success(
          {
            relations,
            functions: expenseDialect.functions.map((f) => f.toUpperCase()),
            rules: SQL_RULES,
            limits: {
              ...defaultLimits,
              deadlineMs: ctx.config.sqlDeadlineMs,
              requestsPerSecond: ctx.config.ratePerSecond,
              requestsPerDay: ctx.config.ratePerDay,
              workspaceNameMaxLength: WORKSPACE_NAME_MAX_LENGTH,
            },
            clock,
          },
          [
            'Write SQL against these relations only; read-only queries go to POST /sql/query.',
            `Today is ${clock.today} in the workspace's time zone (${clock.timeZone}); write dates as literals.`,
            sqlTimeZoneSentence(clock.timeZone),
            `${RECIPES.reuseCategories} Budget categories must match them exactly.`,
          ],
          ctx.actions.sql(),
        );
      },
    });
  };
}
