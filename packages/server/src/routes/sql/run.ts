import type { CheckResult, Guard, Mode, RunResult } from '@expense/sql-guard';
import type { SqlResultData } from '@expense/wire';
import type { Principal } from '../../auth/api-keys.js';
import { clockAt } from '../../clock/clock.js';
import { type FxCoverage, staleRatesInstruction } from '../../fx/coverage.js';
import type { ActionBuilder } from '../../http/actions.js';
import type { Claim, IdempotencyStore } from '../../idempotency/store.js';
import type { Database, UserContext } from '../../storage/database.js';
import { PreemptedError, StartDeadlineError } from '../../storage/errors.js';
import type { ArrivalDeadline } from './deadline.js';

export interface SqlRequest {
  principal: Principal;
  /** The workspace, or the lookup done in the transaction's first round trip (see workspaceLookup). */
  workspace: UserContext['workspaceId'];
  mode: Mode;
  sql: string;
  /** The guard's accepted check of `sql` in `mode` (run does not parse it again). */
  checked: CheckResult;
  dryRun: boolean;
  /** Set when an Idempotency-Key claimed a record: a committed write records its response atomically. */
  claim?: Claim;
  /** The request's deadline, counted from its arrival. */
  deadline: ArrivalDeadline;
}

export interface SqlRunner {
  db: Database;
  guard: Guard;
  actions: ActionBuilder;
  idempotency: IdempotencyStore;
  fxCoverage: FxCoverage;
}

/** True when a statement of the checked SQL reads fx_rates_daily. */
function readsDailyRates(checked: CheckResult): boolean {
  return (
    checked.ok &&
    checked.statements.some((s) =>
      s.relations.some((r) => r.name === 'fx_rates_daily' || r.name.endsWith('.fx_rates_daily')),
    )
  );
}

function instructionsFor(
  request: SqlRequest,
  result: RunResult,
  maxRows: number,
  staleRates: string | undefined,
): string[] {
  const out: string[] = [];
  if (staleRates) out.push(staleRates);
  if (request.mode !== 'query') {
    out.push(
      request.dryRun
        ? 'Dry run: the statements ran and were rolled back, nothing was saved. Send the same SQL without dryRun to apply it.'
        : 'Committed: every statement was applied.',
    );
  }
  if (result.statements.some((s) => s.truncated)) {
    out.push(
      `Only the first ${maxRows} rows of a statement are returned (see totalRowCount): aggregate, filter, or page with ORDER BY ... LIMIT/OFFSET.`,
    );
  }
  return out;
}

/** The SQL actions as JSON per builder: the same on every response until the public URL changes (at listen). */
const sqlActions = new WeakMap<ActionBuilder, { baseUrl: string; json: string }>();

/** JSON.stringify(success(data, instructions, actions.sql())), with the actions serialised once. */
function successJson(data: SqlResultData, instructions: string[], actions: ActionBuilder): string {
  let kept = sqlActions.get(actions);
  if (kept?.baseUrl !== actions.baseUrl) {
    kept = { baseUrl: actions.baseUrl, json: JSON.stringify(actions.sql()) };
    sqlActions.set(actions, kept);
  }
  return `{"ok":true,"data":${JSON.stringify(data)},"instructions":${JSON.stringify(instructions)},"actions":${kept.json}}`;
}

/**
 * Runs checked SQL in one user transaction (READ ONLY for queries; rolled back for dry runs) and returns
 * the success envelope as JSON text, the exact bytes sent and, with an Idempotency-Key, kept. A query travels
 * in one round trip (BEGIN, context, workspace lookup, the guard's batch and COMMIT); a write in two.
 * Rejects with WorkspaceNotResolvedError when a workspace lookup finds nothing (no user SQL ran).
 */
/**
 * How long a statement that changes nothing may keep the embedded engine's one connection while another user
 * waits as long: a quarter of the deadline, so the other user still has most of its own deadline left.
 */
const fairShare = (deadlineMs: number) => Math.max(250, Math.round(deadlineMs / 4));

export async function runSql(runner: SqlRunner, request: SqlRequest): Promise<string> {
  const { db, guard, actions, idempotency, fxCoverage } = runner;
  const { principal, workspace, mode, sql, dryRun, claim, checked, deadline } = request;
  // Whether old rates were carried forward: a cached range (no round trip), read while the statement runs.
  const coverage = readsDailyRates(checked) ? fxCoverage.peek().catch(() => undefined) : undefined;
  const writes = checked.ok
    ? [
        ...new Set(
          checked.statements.flatMap((s) =>
            s.relations.filter((r) => r.access !== 'read').map((r) => r.name),
          ),
        ),
      ]
    : [];
  try {
    return await db.userTransaction(
      {
        userId: principal.userId,
        workspaceId: workspace,
        readOnly: mode === 'query',
        // A committed write is recorded in the change history (a dry run rolls back: nothing to record).
        ...(mode !== 'query' && !dryRun
          ? { change: { endpoint: mode, connectionId: principal.connectionId, sql } }
          : {}),
      },
      async (session, scope) => {
        // Waiting for the database counts: a request whose deadline passed meanwhile runs nothing.
        if (deadline.passed) throw deadline.notStarted();
        const result = await guard.run(session, sql, { mode, checked, startedAt: deadline.arrivedAt });
        const clock = clockAt(new Date(), scope.timeZone);
        const range = coverage && (await coverage);
        const staleRates = range && staleRatesInstruction(range, clock.today);
        const data: SqlResultData = {
          workspaceId: scope.workspaceId,
          committed: !dryRun,
          statements: result.statements,
          limits: {
            maxReturnedRows: guard.limits.maxReturnedRows,
            maxAffectedRows: guard.limits.maxAffectedRows,
            deadlineMs: guard.limits.deadlineMs,
            maxResultBytes: guard.limits.maxResultBytes,
          },
          clock,
        };
        const instructions = instructionsFor(request, result, guard.limits.maxReturnedRows, staleRates);
        const body = successJson(data, instructions, actions);
        if (claim && !dryRun)
          await idempotency.completeInTransaction(session, claim, { statusCode: 200, body });
        return body;
      },
      { rollback: dryRun, startBy: deadline.at, writes, fairShareMs: fairShare(deadline.deadlineMs) },
    );
  } catch (error) {
    if (error instanceof StartDeadlineError) throw deadline.notStarted();
    if (error instanceof PreemptedError) throw deadline.preempted(error.afterMs);
    throw error;
  }
}
