import { defaultLimits, expenseDialect } from '@expense/sql-guard';
import { SchemaDataSchema, WORKSPACE_NAME_MAX_LENGTH } from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireApiKey } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fxSchemaHints } from '../../fx/hints.js';
import { success } from '../../http/envelope.js';
import { describeRelations } from '../../storage/index.js';
import { apiKeySecurity, responses } from '../responses.js';
import { SQL_RULES } from './hints.js';

/** GET /v1/schema: the relations from the live catalog, with hints, functions, rules and limits. */
export function schemaRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/schema',
      {
        onRequest: requireApiKey(ctx),
        schema: {
          tags: ['schema'],
          summary: 'The relations SQL can reach, their columns, and hints on how to write them',
          security: apiKeySecurity,
          response: responses(200, SchemaDataSchema),
        },
      },
      async () => {
        const fxHints = fxSchemaHints(ctx.config.fxDays);
        const relations = (await describeRelations(ctx.db)).map((r) =>
          r.name === 'fx_rates_raw' || r.name === 'fx_rates_daily' ? { ...r, hints: fxHints[r.name] } : r,
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
          },
          ['Write SQL against these relations only; read-only queries go to POST /sql/query.'],
          ctx.actions.sql(),
        );
      },
    );
  };
}
