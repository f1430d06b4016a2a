import { createGuard, GuardCheckError, type GuardOptions, type Mode } from '@expense/sql-guard';
import {
  API_ROUTES,
  fastifyRoute,
  SqlExecuteBodySchema,
  SqlQueryBodySchema,
  SqlResultDataSchema,
  WORKSPACE_HEADER,
} from '@expense/wire';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { idempotencyKeyOf } from '../../platform/idempotency/key.js';
import { idempotencyHeaderSchema } from '../../platform/idempotency/owner-write.js';
import { keyedWrite, sendAnswer, type WriteAnswer } from '../../platform/idempotency/write.js';
import type { Principal } from '../auth/api-keys.js';
import { principalOf } from '../auth/authenticate.js';
import { changeGroupHeaders, changeGroupOf } from '../changes/group.js';
import { workspaceClock } from '../workspaces/time-zone.js';
import { CheckCache } from './check-cache.js';
import type { Wait } from './check-cache-queue.js';
import { type ConfirmClaims, confirmIdempotencyKey } from './confirm-tokens.js';
import { ArrivalDeadline, clientGone } from './deadline.js';
import { assertDatabaseMatchesDialect, serverDialect } from './dialect.js';
import { toSqlApiError } from './errors.js';
import { explainedRefusal } from './guard-hints.js';
import { type SqlCall, SqlPipeline } from './pipeline.js';
import { WorkspaceResolution } from './workspace.js';

const PURGE_INTERVAL_MS = 10 * 60_000;

const workspaceHeader = {
  [WORKSPACE_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe("Run in this workspace instead of the key's saved one (membership is checked)."),
};

const endpoints = [
  {
    route: API_ROUTES.sqlQuery,
    path: API_ROUTES.sqlQuery.path,
    mode: 'query',
    body: SqlQueryBodySchema.strict(),
    headers: z.object(workspaceHeader),
    summary: 'Run exactly one read-only SELECT (WITH ... SELECT included) in a READ ONLY transaction',
  },
  {
    route: API_ROUTES.sqlExecute,
    path: API_ROUTES.sqlExecute.path,
    mode: 'execute',
    body: SqlExecuteBodySchema.strict(),
    headers: z.object({ ...workspaceHeader, ...idempotencyHeaderSchema, ...changeGroupHeaders }),
    summary: 'Run exactly one INSERT, UPDATE or DELETE (WITH forms included); dryRun rolls back',
  },
  {
    route: API_ROUTES.sqlScript,
    path: API_ROUTES.sqlScript.path,
    mode: 'script',
    body: SqlExecuteBodySchema.strict(),
    headers: z.object({ ...workspaceHeader, ...idempotencyHeaderSchema, ...changeGroupHeaders }),
    summary: 'Run one or more statements atomically (all or nothing); dryRun rolls back',
  },
] as const;

export type SqlEndpointPath = (typeof endpoints)[number]['path'];

/** What a key must be allowed to do to use an endpoint (features/auth/consent.ts): only /sql/query reads. */
export const sqlKeyAccess = (path: SqlEndpointPath): 'read' | 'write' =>
  path === '/sql/query' ? 'read' : 'write';

/** One SQL request, whoever carried it: the HTTP routes here, or an MCP tool (features/mcp/sql-api.ts). */
export interface SqlRequest {
  /** The verified key, its limits spent and its consent enforced (features/auth/authenticate.ts, features/auth/consent.ts). */
  principal: Principal;
  /** X-Workspace-Id, Idempotency-Key and the change group's headers, as after the consent check. */
  headers: Record<string, string | string[] | undefined>;
  body: { sql: string; dryRun?: boolean | undefined; confirmToken?: string | undefined };
  /**
   * A token its caller verified for a subject of its own (an import's file, features/imports/routes.ts), in place of
   * body.confirmToken: spent in this write's transaction like one.
   */
  confirm?: ConfirmClaims;
  /** When the request arrived (epoch ms): its deadline counts from here. */
  arrivedAt: number;
  /** Aborts when the client went away. */
  signal: AbortSignal;
  requestId: string;
  log: FastifyBaseLogger;
}

/** The answer to send: a success (or a kept refusal replayed) as the exact JSON text, with its headers. */
export type SqlAnswer = WriteAnswer;

/** The SQL endpoints' one handler; refusals are thrown (ApiError or what toApiError maps). */
export type SqlService = (path: SqlEndpointPath, request: SqlRequest) => Promise<SqlAnswer>;

/**
 * POST /v1/sql/query, /v1/sql/execute and /v1/sql. `expose` receives their handler, for the MCP tools that
 * run SQL in-process (the same check, limits, in-flight place, pipeline and errors, without an HTTP round).
 */
export function sqlRoutes(
  ctx: AppContext,
  checkPool?: GuardOptions['checkPool'],
  expose?: (service: SqlService) => void,
): FastifyPluginAsyncZod {
  return async (app) => {
    await assertDatabaseMatchesDialect(ctx.db);
    const guard = await createGuard({
      dialect: serverDialect,
      limits: { deadlineMs: ctx.config.sqlDeadlineMs },
      ...(checkPool ? { checkPool } : {}),
    });
    const { idempotency } = ctx;
    const pipeline = new SqlPipeline({
      db: ctx.db,
      guard,
      actions: ctx.actions,
      idempotency,
      fxCoverage: ctx.fxCoverage,
    });
    const checks = new CheckCache(guard, { poolThreads: checkPool?.threads ?? 1 });
    const purgeTokens = setInterval(() => {
      ctx.confirmations
        .purgeExpired()
        .catch((error: unknown) => app.log.warn({ err: error }, 'confirmation purge'));
    }, PURGE_INTERVAL_MS);
    purgeTokens.unref();
    app.addHook('onClose', async () => {
      clearInterval(purgeTokens);
      await guard.close();
    });

    /**
     * Refuses what the guard refuses, before any database work; the accepted check goes to the run. A long text
     * waits for the guard's pool no longer than its request's deadline, nor once its client has gone.
     */
    async function accepted(
      request: SqlRequest,
      sql: string,
      mode: Mode,
      { deadline, signal }: { deadline: ArrivalDeadline; signal: AbortSignal },
    ) {
      const { principal } = request;
      if (sql.includes('\0')) {
        throw new ApiError(
          'invalid_request',
          'sql contains a NUL character, which PostgreSQL text cannot hold.',
          { details: { issues: [{ path: 'body.sql', message: 'NUL character' }] } },
        );
      }
      const wait: Wait = {
        signal,
        until: deadline.at,
        gaveUp: (gone) => (gone ? deadline.aborted() : deadline.notStarted()),
      };
      const checked = await checks.check(sql, mode, principal, wait).catch((error: unknown) => {
        throw toSqlApiError(error);
      });
      if (checked.ok) return checked;
      const clockOf = () => workspaceClock(ctx.db, principal, request.headers['x-workspace-id']);
      throw toSqlApiError(new GuardCheckError(await explainedRefusal(checked.error, clockOf)));
    }

    /** One SQL request: check, in-flight place, workspace, then the pipeline (through the idempotency record when keyed). */
    async function handle(request: SqlRequest, endpoint: { path: string; mode: Mode }): Promise<SqlAnswer> {
      const { principal, body } = request;
      const { sql } = body;
      const { mode } = endpoint;
      let key = mode === 'query' ? undefined : idempotencyKeyOf(request.headers['idempotency-key']);
      const group = mode === 'query' ? undefined : changeGroupOf(request.headers);
      // The deadline counts from the request's arrival; the lease is held until the connection is back in the pool.
      const deadline = new ArrivalDeadline(request.arrivedAt, guard.limits.deadlineMs);
      const { signal } = request;
      const checked = await accepted(request, sql, mode, { deadline, signal });
      let header = request.headers['x-workspace-id'];
      // A dry run's token: this key, this SQL, the dry run's workspace (the default here), once (spent with the
      // write); without an Idempotency-Key of its own, a retry of the same token replays instead of failing.
      const confirm =
        request.confirm ??
        (body.confirmToken === undefined
          ? undefined
          : await ctx.confirmations.verify(
              body.confirmToken,
              principal.connectionId,
              sql,
              typeof header === 'string' ? header : undefined,
            ));
      if (confirm) {
        if (body.dryRun === true) {
          throw new ApiError('invalid_request', 'confirmToken commits: send it without dryRun.', {
            details: { issues: [{ path: 'body.dryRun', message: 'not with confirmToken' }] },
          });
        }
        header ??= confirm.w;
        key ??= confirmIdempotencyKey(confirm);
      }
      const call: SqlCall = {
        principal,
        mode,
        sql,
        checked,
        dryRun: body.dryRun === true,
        deadline,
        signal,
        requestId: request.requestId,
        ...(group ? { group } : {}),
        ...(confirm ? { confirm } : {}),
      };
      if (call.dryRun && mode !== 'query') {
        const issue = await ctx.confirmations.issuer();
        call.issueToken = (workspaceId) => issue(principal.connectionId, workspaceId, sql);
      }
      const workspace = new WorkspaceResolution(ctx.db, ctx.actions, principal, header);
      const lease = await ctx.inflight.admit(principal);
      try {
        if (key !== undefined) {
          const workspaceId = await workspace.resolve();
          return await keyedWrite(
            idempotency,
            {
              key,
              connectionId: principal.connectionId,
              request: { endpoint: endpoint.path, workspaceId, sql, dryRun: call.dryRun },
              toApiError: toSqlApiError,
              actions: ctx.actions,
              log: request.log,
            },
            (claim) => pipeline.run({ ...call, claim }, workspaceId),
          );
        }
        const answer = await workspace
          .run((w) => pipeline.run(call, w))
          .catch((error: unknown) => {
            throw toSqlApiError(error);
          });
        return { statusCode: 200, body: answer, headers: {} };
      } finally {
        await lease.release();
      }
    }

    expose?.((path, request) => handle(request, endpoints.find((e) => e.path === path)!));

    for (const endpoint of endpoints) {
      app.route({
        ...fastifyRoute(endpoint.route),
        config: { keyAccess: sqlKeyAccess(endpoint.path) },
        schema: {
          tags: ['sql'],
          summary: endpoint.summary,
          security: apiKeySecurity,
          headers: endpoint.headers,
          body: endpoint.body,
          response: responses(200, SqlResultDataSchema),
        },
        handler: async (request, reply) => {
          const answer = await handle(
            {
              principal: principalOf(request),
              headers: request.headers,
              body: request.body,
              arrivedAt: Date.now() - reply.elapsedTime,
              signal: clientGone(reply.raw),
              requestId: request.id,
              log: request.log,
            },
            endpoint,
          );
          sendAnswer(reply, answer);
        },
      });
    }
  };
}
