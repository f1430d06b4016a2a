import { createGuard } from '@expense/sql-guard';
import { API_ROUTES, fastifyRoute, WORKSPACE_HEADER } from '@expense/wire';
import {
  type ReportData,
  ReportDataSchema,
  ReportInputError,
  ReportParamsSchema,
  ReportQuerySchema,
} from '@expense/wire/reports';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { clockAt } from '../../platform/clock/clock.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { StartDeadlineError } from '../../platform/storage/errors.js';
import { principalOf } from '../auth/authenticate.js';
import { ArrivalDeadline, clientGone } from '../sql/deadline.js';
import { toSqlApiError } from '../sql/errors.js';
import { runGuarded } from '../sql/pipeline.js';
import { WorkspaceResolution } from '../sql/workspace.js';
import { reportData } from './data.js';
import { reportScript } from './sql.js';

/**
 * GET /v1/reports/{kind}: the fixed reports of @expense/wire/reports, their SQL (sql.ts) run as one read-only script
 * (one snapshot) under the caller's context, through the guard and its limits like any SQL request, and shaped by
 * the same function (data.ts) for every client (the MCP `report` tool, `expense report`, the console).
 */
/** What to send instead of a range that is not a report's (the catalogue's words), for any of its refusals. */
const RANGE_HINT = { variant: 'report_range' } as const;

export function reportRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const guard = await createGuard({ limits: { deadlineMs: ctx.config.sqlDeadlineMs } });
    app.addHook('onClose', async () => guard.close());

    app.route({
      ...fastifyRoute(API_ROUTES.report),
      config: { fieldHints: { from: RANGE_HINT, to: RANGE_HINT } },
      schema: {
        tags: ['reports'],
        summary:
          "A fixed report in one currency (default: the workspace's reporting currency), converted by the daily rate of each entry's local day and rounded to the currency's minor units",
        security: apiKeySecurity,
        headers: z.object({
          [WORKSPACE_HEADER.toLowerCase()]: z
            .string()
            .optional()
            .describe("Report on this workspace instead of the key's saved one (membership is checked)."),
        }),
        params: ReportParamsSchema,
        querystring: ReportQuerySchema,
        response: responses(200, ReportDataSchema),
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        const input = { kind: request.params.kind, ...request.query };
        let sql: string;
        try {
          sql = reportScript(input).join(';\n');
        } catch (error) {
          // Before any SQL runs: dates PostgreSQL holds, in order, at most 36 months (@expense/wire/reports).
          if (error instanceof ReportInputError)
            throw new ApiError('invalid_request', error.message, { variant: 'report_range' });
          throw error;
        }
        const checked = guard.check(sql, { mode: 'script' });
        if (!checked.ok) throw new Error(`report SQL refused by the guard: ${checked.error.code}`);
        const deadline = new ArrivalDeadline(Date.now() - reply.elapsedTime, guard.limits.deadlineMs);
        const signal = clientGone(reply.raw);
        const workspace = new WorkspaceResolution(
          ctx.db,
          ctx.actions,
          principal,
          request.headers['x-workspace-id'],
        );
        // A report is SQL work like any other: it holds an in-flight place until its connection is back.
        const lease = await ctx.inflight.admit(principal);
        const data: ReportData = await workspace
          .run((workspaceId) =>
            runGuarded(
              ctx.db,
              guard,
              { userId: principal.userId, workspaceId, readOnly: true },
              {
                mode: 'script',
                sql,
                checked,
                dryRun: false,
                startedAt: deadline.arrivedAt,
                signal,
                connection: { startBy: deadline.at },
              },
              async (result, scope) =>
                reportData(input, result.statements, clockAt(new Date(), scope.timeZone).today),
            ),
          )
          .catch((error: unknown) => {
            if (error instanceof StartDeadlineError)
              throw toSqlApiError(signal.aborted ? deadline.aborted() : deadline.notStarted());
            throw toSqlApiError(error);
          })
          .finally(() => lease.release());
        return success(data, data.notes);
      },
    });
  };
}
