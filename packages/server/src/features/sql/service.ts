import { createGuard, GuardCheckError, type GuardOptions, type Mode } from '@expense/sql-guard';
import type { FastifyBaseLogger } from 'fastify';
import type { ActionBuilder } from '../../platform/http/actions.js';
import { ApiError } from '../../platform/http/api-error.js';
import { idempotencyKeyOf } from '../../platform/idempotency/key.js';
import type { IdempotencyStore } from '../../platform/idempotency/store.js';
import { executeWrite, type WriteAnswer } from '../../platform/idempotency/write.js';
import type { InflightLimiter } from '../../platform/inflight/index.js';
import type { Database } from '../../platform/storage/database.js';
import type { Principal } from '../auth/api-keys.js';
import { changeGroupOf } from '../changes/group.js';
import type { FxCoverage } from '../fx/coverage.js';
import { workspaceClock } from '../workspaces/time-zone.js';
import { CheckCache } from './check-cache.js';
import type { Wait } from './check-cache-queue.js';
import { type ConfirmationTokens, type ConfirmClaims, redeemConfirmation } from './confirm-tokens.js';
import { ArrivalDeadline } from './deadline.js';
import { assertDatabaseMatchesDialect, serverDialect } from './dialect.js';
import { toSqlApiError } from './errors.js';
import { explainedRefusal } from './guard-hints.js';
import { type SqlCall, SqlPipeline } from './pipeline.js';
import { WorkspaceResolution } from './workspace.js';

const PURGE_INTERVAL_MS = 10 * 60_000;

/** The SQL endpoints, by the mode the guard checks their text in. */
export const SQL_MODES = { '/sql/query': 'query', '/sql/execute': 'execute', '/sql': 'script' } as const;
export type SqlEndpointPath = keyof typeof SQL_MODES;

/** What a key must be allowed to do to use an endpoint (features/auth/consent.ts): only /sql/query reads. */
export const sqlKeyAccess = (path: SqlEndpointPath): 'read' | 'write' =>
  path === '/sql/query' ? 'read' : 'write';

/** One SQL request, whoever carried it: the HTTP routes (routes.ts), an MCP tool (features/mcp/sql-api.ts), an import. */
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

/** What the service is built from (the app context's parts). */
export interface SqlServiceDeps {
  db: Database;
  actions: ActionBuilder;
  idempotency: IdempotencyStore;
  inflight: InflightLimiter;
  fxCoverage: FxCoverage;
  confirmations: ConfirmationTokens;
  deadlineMs: number;
  checkPool?: GuardOptions['checkPool'];
  log: FastifyBaseLogger;
}

/** The SQL endpoints' one handler, built once per app; refusals are thrown (ApiError or what toApiError maps). */
export interface SqlService {
  run(path: SqlEndpointPath, request: SqlRequest): Promise<SqlAnswer>;
  /** Stops the purge timer and the guard's pool. */
  close(): Promise<void>;
}

/**
 * Builds the SQL service: the guard (refused unless the database matches its dialect), the checks' cache, the
 * pipeline, and the purge of spent confirmation tokens.
 */
export async function createSqlService(deps: SqlServiceDeps): Promise<SqlService> {
  const { db, actions, idempotency, confirmations, checkPool } = deps;
  await assertDatabaseMatchesDialect(db);
  const guard = await createGuard({
    dialect: serverDialect,
    limits: { deadlineMs: deps.deadlineMs },
    ...(checkPool ? { checkPool } : {}),
  });
  const pipeline = new SqlPipeline({ db, guard, actions, idempotency, fxCoverage: deps.fxCoverage });
  const checks = new CheckCache(guard, { poolThreads: checkPool?.threads ?? 1 });
  const purgeTokens = setInterval(() => {
    confirmations
      .purgeExpired()
      .catch((error: unknown) => deps.log.warn({ err: error }, 'confirmation purge'));
  }, PURGE_INTERVAL_MS);
  purgeTokens.unref();

  /**
   * Refuses what the guard refuses, before any database work; the accepted check goes to the run. A long text
   * waits for the guard's pool no longer than its request's deadline, nor once its client has gone.
   */
  async function accepted(request: SqlRequest, mode: Mode, deadline: ArrivalDeadline) {
    const { principal, signal } = request;
    const { sql } = request.body;
    if (sql.includes('\0')) {
      throw new ApiError(
        'invalid_request',
        'sql contains a NUL character, which PostgreSQL text cannot hold.',
        {
          details: { issues: [{ path: 'body.sql', message: 'NUL character' }] },
        },
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
    const clockOf = () => workspaceClock(db, principal, request.headers['x-workspace-id']);
    throw toSqlApiError(new GuardCheckError(await explainedRefusal(checked.error, clockOf)));
  }

  /** One SQL request: check, confirmation, then the write command (in-flight place, workspace, keyed write). */
  async function run(path: SqlEndpointPath, request: SqlRequest): Promise<SqlAnswer> {
    const { principal, body } = request;
    const { sql } = body;
    const mode = SQL_MODES[path];
    const writes = mode !== 'query';
    const requestKey = writes ? idempotencyKeyOf(request.headers['idempotency-key']) : undefined;
    const group = writes ? changeGroupOf(request.headers) : undefined;
    // The deadline counts from the request's arrival; the lease is held until the connection is back in the pool.
    const deadline = new ArrivalDeadline(request.arrivedAt, guard.limits.deadlineMs);
    const checked = await accepted(request, mode, deadline);
    let header = request.headers['x-workspace-id'];
    const dryRun = body.dryRun === true;
    // A dry run's token: this key, this SQL, the dry run's workspace (the default here), once (spent with the
    // write); without an Idempotency-Key of its own, a retry of the same token replays instead of failing.
    const redeem = body.confirmToken !== undefined || request.confirm !== undefined;
    const { confirm, key } = !redeem
      ? { confirm: undefined, key: requestKey }
      : await redeemConfirmation(confirmations, {
          principal,
          token: body.confirmToken,
          ...(request.confirm ? { verified: request.confirm } : {}),
          subject: sql,
          workspaceId: typeof header === 'string' ? header : undefined,
          dryRun,
          key: requestKey,
          dryRunIssuePath: 'body.dryRun',
        });
    if (confirm) header ??= confirm.w;
    const call: SqlCall = {
      principal,
      mode,
      sql,
      checked,
      dryRun,
      deadline,
      signal: request.signal,
      requestId: request.requestId,
      ...(group ? { group } : {}),
      ...(confirm ? { confirm } : {}),
    };
    if (dryRun && writes) {
      const issue = await confirmations.issuer();
      call.issueToken = (workspaceId) => issue(principal.connectionId, workspaceId, sql);
    }
    const workspace = new WorkspaceResolution(db, actions, principal, header);
    return executeWrite(deps, {
      principal,
      key,
      endpoint: path,
      subject: sql,
      dryRun,
      workspace: () => workspace.resolve(),
      run: (claim, workspaceId) =>
        claim && workspaceId !== undefined
          ? pipeline.run({ ...call, claim }, workspaceId)
          : workspace.run((w) => pipeline.run(call, w)),
      toApiError: toSqlApiError,
      log: request.log,
    });
  }

  return {
    run,
    async close() {
      clearInterval(purgeTokens);
      await guard.close();
    },
  };
}
