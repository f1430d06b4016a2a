import {
  type CheckResult,
  createGuard,
  GuardCheckError,
  type GuardOptions,
  type Mode,
} from '@expense/sql-guard';
import {
  IDEMPOTENCY_HEADER,
  SqlExecuteBodySchema,
  SqlQueryBodySchema,
  SqlResultDataSchema,
  WORKSPACE_HEADER,
} from '@expense/wire';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf, requireApiKey } from '../../auth/authenticate.js';
import { workspaceClock } from '../../clock/workspace-time-zone.js';
import type { AppContext } from '../../context.js';
import { ApiError, isApiError } from '../../http/api-error.js';
import { failure } from '../../http/envelope.js';
import { idempotencyKeyOf, requestHash } from '../../idempotency/key.js';
import { IdempotencyStore, type KeptResponse } from '../../idempotency/store.js';
import { InflightLimiter } from '../../inflight/index.js';
import { WorkspaceNotResolvedError } from '../../storage/errors.js';
import { apiKeySecurity, responses } from '../responses.js';
import { CheckCache } from './check-cache.js';
import { ArrivalDeadline } from './deadline.js';
import { toSqlApiError } from './errors.js';
import { explainedRefusal } from './guard-hints.js';
import { runSql, type SqlRunner } from './run.js';
import { resolveWorkspace, workspaceLookup } from './workspace.js';

const DAY_MS = 86_400_000;
const PURGE_INTERVAL_MS = 10 * 60_000;
const JSON_TYPE = 'application/json; charset=utf-8';

const workspaceHeader = {
  [WORKSPACE_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe("Run in this workspace instead of the key's saved one (membership is checked)."),
};
const idempotencyHeader = {
  [IDEMPOTENCY_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe(
      'Up to 255 visible ASCII characters; the response is kept 24 hours for this ApiKey and replayed for the same request.',
    ),
};

const endpoints = [
  {
    path: '/sql/query',
    mode: 'query',
    body: SqlQueryBodySchema.strict(),
    headers: z.object(workspaceHeader),
    summary: 'Run exactly one read-only SELECT (WITH ... SELECT included) in a READ ONLY transaction',
  },
  {
    path: '/sql/execute',
    mode: 'execute',
    body: SqlExecuteBodySchema.strict(),
    headers: z.object({ ...workspaceHeader, ...idempotencyHeader }),
    summary: 'Run exactly one INSERT, UPDATE or DELETE (WITH forms included); dryRun rolls back',
  },
  {
    path: '/sql',
    mode: 'script',
    body: SqlExecuteBodySchema.strict(),
    headers: z.object({ ...workspaceHeader, ...idempotencyHeader }),
    summary: 'Run one or more statements atomically (all or nothing); dryRun rolls back',
  },
] as const;

function send(reply: FastifyReply, kept: KeptResponse): FastifyReply {
  return reply.code(kept.statusCode).type(JSON_TYPE).send(kept.body);
}

/** POST /v1/sql/query, /v1/sql/execute and /v1/sql. */
export function sqlRoutes(ctx: AppContext, checkPool?: GuardOptions['checkPool']): FastifyPluginAsyncZod {
  return async (app) => {
    const guard = await createGuard({
      limits: { deadlineMs: ctx.config.sqlDeadlineMs },
      ...(checkPool ? { checkPool } : {}),
    });
    const idempotency = new IdempotencyStore(ctx.db, {
      ttlMs: DAY_MS,
      staleAfterMs: guard.limits.deadlineMs + 60_000,
      waitMs: guard.limits.deadlineMs + 5_000,
      pollMs: 50,
    });
    const runner: SqlRunner = {
      db: ctx.db,
      guard,
      actions: ctx.actions,
      idempotency,
      fxCoverage: ctx.fxCoverage,
    };
    const checks = new CheckCache(guard);
    const purge = setInterval(() => {
      idempotency.purgeExpired().catch((error: unknown) => app.log.warn({ err: error }, 'idempotency purge'));
    }, PURGE_INTERVAL_MS);
    purge.unref();
    // At most maxInflightPerKey / maxInflightPerUser SQL requests in flight (shared through Redis when set).
    const inflight = new InflightLimiter({
      perKey: ctx.config.maxInflightPerKey,
      perUser: ctx.config.maxInflightPerUser,
      redisUrl: ctx.config.redisUrl,
      redisKeyPrefix: ctx.config.redisKeyPrefix,
      onRedisError: (error) => app.log.warn({ err: error }, 'in-flight limits: Redis did not answer'),
    });
    app.addHook('onClose', async () => {
      clearInterval(purge);
      await inflight.close();
      await guard.close();
    });

    async function handle(
      request: FastifyRequest,
      reply: FastifyReply,
      body: { sql: string; dryRun?: boolean | undefined },
      endpoint: { path: string; mode: Mode },
    ): Promise<void> {
      const principal = principalOf(request);
      const { sql } = body;
      const { mode } = endpoint;
      const dryRun = body.dryRun === true;
      if (sql.includes('\0')) {
        throw new ApiError(
          'invalid_request',
          'sql contains a NUL character, which PostgreSQL text cannot hold.',
          {
            details: { issues: [{ path: 'body.sql', message: 'NUL character' }] },
          },
        );
      }
      const key = mode === 'query' ? undefined : idempotencyKeyOf(request.headers['idempotency-key']);
      // Refuse what the guard refuses before any database work (run takes this result, without parsing again).
      const checked = await checks.check(sql, mode, principal.connectionId).catch((error: unknown) => {
        throw toSqlApiError(error);
      });
      if (!checked.ok) {
        const clockOf = () => workspaceClock(ctx.db, principal, request.headers['x-workspace-id']);
        throw toSqlApiError(new GuardCheckError(await explainedRefusal(checked.error, clockOf)));
      }

      // The deadline counts from the request's arrival; the lease is held until the request is over.
      const deadline = new ArrivalDeadline(Date.now() - reply.elapsedTime, guard.limits.deadlineMs);
      const lease = await inflight.admit(
        { connectionId: principal.connectionId, userId: principal.userId },
        guard.limits.deadlineMs,
      );
      try {
        await run(request, reply, { sql, mode, dryRun, key, checked, deadline }, endpoint);
      } finally {
        await lease.release();
      }
    }

    async function run(
      request: FastifyRequest,
      reply: FastifyReply,
      input: {
        sql: string;
        mode: Mode;
        dryRun: boolean;
        key: string | undefined;
        checked: CheckResult;
        deadline: ArrivalDeadline;
      },
      endpoint: { path: string },
    ): Promise<void> {
      const principal = principalOf(request);
      const { sql, mode, dryRun, key, checked, deadline } = input;
      const header = request.headers['x-workspace-id'];
      const resolve = () => resolveWorkspace(ctx.db, ctx.actions, principal, header);
      if (key === undefined) {
        // The workspace lookup travels with the statement; only when it finds nothing (nothing ran) does the
        // full resolution decide: 404, the only workspace (saved, then run), or 400 missing_workspace.
        const lookup = workspaceLookup(principal, header);
        let body: string;
        try {
          try {
            if (lookup === undefined) throw new WorkspaceNotResolvedError();
            body = await runSql(runner, {
              principal,
              workspace: lookup,
              mode,
              sql,
              dryRun,
              checked,
              deadline,
            });
          } catch (error) {
            if (!(error instanceof WorkspaceNotResolvedError)) throw error;
            const workspace = await resolve();
            body = await runSql(runner, { principal, workspace, mode, sql, dryRun, checked, deadline });
          }
        } catch (error) {
          throw toSqlApiError(error);
        }
        send(reply, { statusCode: 200, body });
        return;
      }

      const workspaceId = await resolve();

      const begun = await idempotency.begin({
        connectionId: principal.connectionId,
        key,
        requestHash: requestHash({ endpoint: endpoint.path, workspaceId, sql, dryRun }),
        workspaceId,
      });
      if ('replay' in begun) return void send(reply.header('idempotent-replayed', 'true'), begun.replay);
      const { claim } = begun;
      let kept: KeptResponse;
      try {
        const body = await runSql(runner, {
          principal,
          workspace: workspaceId,
          mode,
          sql,
          dryRun,
          checked,
          claim,
          deadline,
        });
        kept = { statusCode: 200, body };
        if (dryRun) await idempotency.complete(claim, kept);
      } catch (error) {
        const mapped = toSqlApiError(error);
        if (isApiError(mapped) && mapped.status < 500) {
          // A refusal committed nothing and would be refused again: keep it like a success.
          kept = { statusCode: mapped.status, body: JSON.stringify(failure(mapped, ctx.actions)) };
          await idempotency.complete(claim, kept);
          for (const [name, value] of Object.entries(mapped.options.headers ?? {})) reply.header(name, value);
        } else {
          // Nothing was committed (or, for an unknown outcome, the record tells): let a retry run.
          await idempotency
            .release(claim)
            .catch((e: unknown) => request.log.warn({ err: e }, 'idempotency release'));
          throw mapped;
        }
      }
      send(reply, kept);
    }

    for (const endpoint of endpoints) {
      app.post(
        endpoint.path,
        {
          onRequest: requireApiKey(ctx),
          config: { keyAccess: endpoint.mode === 'query' ? 'read' : 'write' },
          schema: {
            tags: ['sql'],
            summary: endpoint.summary,
            security: apiKeySecurity,
            headers: endpoint.headers,
            body: endpoint.body,
            response: responses(200, SqlResultDataSchema),
          },
        },
        async (request, reply) => {
          await handle(request, reply, request.body, endpoint);
        },
      );
    }
  };
}
