import type { McpApi, SqlResult } from '@expense/mcp';
import { McpApiError } from '@expense/mcp';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { failure } from '../../platform/http/envelope.js';
import { toApiError } from '../../platform/http/error-mapping.js';
import { applyKeyLimits } from '../../platform/ratelimit/limits.js';
import type { Principal } from '../auth/api-keys.js';
import { checkKeyConsent } from '../auth/consent.js';
import { type SqlAnswer, type SqlRequest, sqlKeyAccess } from '../sql/service.js';
import { answerOf } from './inject-api.js';

/** The MCP request a tool runs in: its verified key, id, log and client. */
export interface ToolCaller {
  principal: Principal;
  requestId: string;
  log: FastifyBaseLogger;
  /** Aborts when the MCP client went away. */
  signal: AbortSignal;
}

/** Rate-limit headers of an in-process call: there is no HTTP response of its own to carry them. */
const noHeaders = { headers: () => undefined };

/**
 * The `query`, `execute` and `report` tools' SQL, run in-process by the SQL endpoints' own handler (features/sql/service.ts):
 * each call is a SQL request of the caller's key as over HTTP — a point of the key's limits, its consent (read-only
 * and workspace-bound keys), then the same guard, in-flight place, deadline, pipeline, row-level security and
 * error mapping — without the cost of a second HTTP request through Fastify (issue 22: the tool within 1.3x of
 * POST /v1/sql/query).
 */
export function sqlApi(ctx: AppContext, caller: ToolCaller): McpApi['sql'] {
  return async (endpoint, sql, c = {}) => {
    const headers: SqlRequest['headers'] = {};
    if (c.workspaceId) headers['x-workspace-id'] = c.workspaceId;
    if (c.idempotencyKey) headers['idempotency-key'] = c.idempotencyKey;
    const body: SqlRequest['body'] =
      endpoint === '/sql/query'
        ? { sql }
        : {
            sql,
            ...(c.dryRun ? { dryRun: true } : {}),
            ...(c.confirmToken ? { confirmToken: c.confirmToken } : {}),
          };
    let answer: SqlAnswer;
    try {
      await applyKeyLimits(ctx.keyLimits, caller.principal.connectionId, noHeaders);
      const bound = checkKeyConsent(caller.principal, {
        access: sqlKeyAccess(endpoint),
        workspaceIds: c.workspaceId ? [c.workspaceId] : [],
      });
      if (bound) headers['x-workspace-id'] = bound;
      answer = await ctx.sql.run(endpoint, {
        principal: caller.principal,
        headers,
        body,
        arrivedAt: Date.now(),
        signal: caller.signal,
        requestId: caller.requestId,
        log: caller.log,
      });
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500) caller.log.error({ err: error }, 'request failed');
      const envelope = failure(apiError, ctx.actions);
      throw new McpApiError(apiError.status, envelope.error, envelope.actions);
    }
    return answerOf<SqlResult>(
      answer.statusCode,
      answer.body,
      answer.headers['idempotent-replayed'] === 'true',
      true,
    );
  };
}
