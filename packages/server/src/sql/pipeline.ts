/**
 * The SQL endpoints' path from an accepted check to the bytes of the answer: one user transaction on a connection of
 * its own, in round trips planned here and nowhere else.
 *
 *   round trip 1   BEGIN [READ ONLY]
 *                  [SET LOCAL DateStyle, IntervalStyle, extra_float_digits]    behind a transaction-mode pooler only
 *                  SELECT <the guard's settings check>, [begin_change(…)], begin_user_context(…), workspace_time_zone()
 *                  <the guard's batch of statement 1: SET LOCAL statement_timeout, the statement (direct or cursor)>
 *                  [COMMIT]                                                   a read: behind its last batch
 *   round trip k   <the guard's batch of statement k> [COMMIT]                 scripts: one per further statement
 *   last (writes)  [RESET ROLE; UPDATE the idempotency record]                 with an Idempotency-Key
 *                  COMMIT, or SET CONSTRAINTS ALL IMMEDIATE; ROLLBACK          after the row caps were judged
 *
 * The prelude (BEGIN, settings, context) and the read's COMMIT travel through the guard's one hook for them
 * (`around` of guard.run): the guard sends them in its own round trips and hands their results back. The context
 * (storage/user-context.ts) looks the workspace up as the owner before the role switch; when the lookup finds
 * nothing it raises, nothing behind it runs, and WorkspaceResolution (workspace.ts) decides the answer.
 */
import type { CheckResult, Guard, Mode, PreludeEpilogue } from '@expense/sql-guard';
import type { Principal } from '../auth/api-keys.js';
import { clockAt } from '../clock/clock.js';
import { type FxCoverage, staleRatesInstruction } from '../fx/coverage.js';
import type { ActionBuilder } from '../http/actions.js';
import type { Claim, IdempotencyStore } from '../idempotency/store.js';
import type { Database, UserConnection, UserContext, UserScope } from '../storage/database.js';
import { RolledBackError } from '../storage/engine.js';
import { PreemptedError, StartDeadlineError, WorkspaceNotResolvedError } from '../storage/errors.js';
import { INTERNAL_SCHEMA } from '../storage/names.js';
import {
  beginStatement,
  contextSelect,
  isWorkspaceNotResolved,
  OUTPUT_SETTINGS_LOCAL,
  scopeOf,
} from '../storage/user-context.js';
import type { ArrivalDeadline } from './deadline.js';
import { successEnvelope } from './envelope.js';

/** One accepted SQL request. */
export interface SqlCall {
  principal: Principal;
  mode: Mode;
  sql: string;
  /** The guard's accepted check of `sql` in `mode` (run does not parse it again). */
  checked: CheckResult;
  dryRun: boolean;
  /** Set when an Idempotency-Key claimed a record: a committed write records its response atomically. */
  claim?: Claim;
  /** The request's deadline, counted from its arrival: waiting for a connection is part of it. */
  deadline: ArrivalDeadline;
  /** Aborts when the client went away: the statement in flight is cancelled on the database. */
  signal?: AbortSignal;
}

export interface SqlPipelineDeps {
  db: Database;
  guard: Guard;
  actions: ActionBuilder;
  idempotency: IdempotencyStore;
  fxCoverage: FxCoverage;
}

/** The statements the pipeline puts around the guard's, and what their results said. */
export interface RoundTripPlan {
  around: PreludeEpilogue;
  /** The workspace and time zone, from the context's row (known once the first round trip answered). */
  scope(): UserScope;
}

/**
 * BEGIN, the output settings where the connection cannot keep them, and the context (evaluating the guard's settings
 * check first) in front of the first batch; for a read that commits, COMMIT behind the last.
 */
export function roundTripPlan(
  ctx: UserContext,
  outputSettings: UserConnection['outputSettings'],
  commitBehindLast: boolean,
): RoundTripPlan {
  let scope: UserScope | undefined;
  const around: PreludeEpilogue = {
    prelude: (settingsCheck) => [
      beginStatement(ctx),
      ...(outputSettings === 'per-transaction' ? OUTPUT_SETTINGS_LOCAL : []),
      contextSelect(ctx, settingsCheck),
    ],
    ...(commitBehindLast ? { epilogue: ['COMMIT'] } : {}),
    answered: (part, results) => {
      if (part === 'prelude') scope = scopeOf(results.at(-1));
      else if (results.at(-1)?.command === 'ROLLBACK') throw new RolledBackError('COMMIT answered ROLLBACK.');
    },
  };
  return {
    around,
    scope: () => {
      if (!scope) throw new Error('The context is known once the first round trip answered.');
      return scope;
    },
  };
}

/**
 * How long a statement that changes nothing may keep the embedded engine's one connection while another user
 * waits as long: a quarter of the deadline, so the other user still has most of its own deadline left.
 */
const fairShare = (deadlineMs: number) => Math.max(250, Math.round(deadlineMs / 4));

/** True when a statement of the checked SQL reads fx_rates_daily. */
function readsDailyRates(checked: CheckResult): boolean {
  return checked.ok && checked.statements.some((s) => s.relations.some((r) => r.name === 'fx_rates_daily'));
}

/** The relations the checked SQL may write. */
function writtenRelations(checked: CheckResult): string[] {
  if (!checked.ok) return [];
  const names = checked.statements.flatMap((s) => s.relations.filter((r) => r.access !== 'read'));
  return [...new Set(names.map((r) => r.name))];
}

export class SqlPipeline {
  constructor(private readonly deps: SqlPipelineDeps) {}

  /**
   * Runs an accepted request in one user transaction (READ ONLY for queries; rolled back for dry runs) in
   * `workspace`, and returns the success envelope as JSON text. Rejects with WorkspaceNotResolvedError when the
   * workspace was a lookup that found nothing (no user SQL ran).
   */
  async run(call: SqlCall, workspace: UserContext['workspaceId']): Promise<string> {
    const { db, guard, actions, idempotency, fxCoverage } = this.deps;
    const { principal, mode, sql, dryRun, claim, checked, deadline, signal } = call;
    const readOnly = mode === 'query';
    const ctx: UserContext = {
      userId: principal.userId,
      workspaceId: workspace,
      readOnly,
      // A committed write is recorded in the change history (a dry run rolls back: nothing to record).
      ...(!readOnly && !dryRun
        ? { change: { endpoint: mode, connectionId: principal.connectionId, sql } }
        : {}),
    };
    contextSelect(ctx); // rejects ids that are not UUIDs before any I/O
    // Whether old rates were carried forward: a cached range (no round trip), read while the statement runs.
    const coverage = readsDailyRates(checked) ? fxCoverage.peek().catch(() => undefined) : undefined;
    const commitBehindLast = readOnly && !dryRun;
    const options = {
      tenant: principal.userId,
      readOnly,
      rollsBack: dryRun,
      startBy: deadline.at,
      writes: writtenRelations(checked),
      fairShareMs: fairShare(deadline.deadlineMs),
      ...(signal ? { signal } : {}),
    };
    try {
      return await db.userConnection(options, async (connection) => {
        // Waiting for the connection counts: a request whose deadline passed meanwhile runs nothing.
        if (deadline.passed) throw deadline.notStarted();
        const plan = roundTripPlan(ctx, connection.outputSettings, commitBehindLast);
        const result = await guard
          .run(connection.session, sql, {
            mode,
            checked,
            startedAt: deadline.arrivedAt,
            around: plan.around,
            // The change history's rows, written by triggers beside each write, are not the statement's own.
            bookkeepingSchemas: [INTERNAL_SCHEMA],
            ...(signal ? { signal } : {}),
          })
          .catch((error: unknown) => {
            throw isWorkspaceNotResolved(error) ? new WorkspaceNotResolvedError() : error;
          });
        const { workspaceId, timeZone } = plan.scope();
        const clock = clockAt(new Date(), timeZone);
        const range = coverage && (await coverage);
        const staleRates = range && staleRatesInstruction(range, clock.today);
        const success = { mode, dryRun, workspaceId, result, limits: guard.limits, clock, staleRates };
        const body = successEnvelope(success, actions);
        if (commitBehindLast) return body;
        if (dryRun) {
          // A dry run of a write runs the deferred checks (balanced transfers) first: it refuses what COMMIT would.
          await connection.session.queryBatch(
            readOnly ? 'ROLLBACK' : 'SET CONSTRAINTS ALL IMMEDIATE;\nROLLBACK',
          );
          return body;
        }
        if (claim)
          await idempotency.completeInTransaction(connection.session, claim, { statusCode: 200, body });
        await connection.commit();
        return body;
      });
    } catch (error) {
      if (error instanceof StartDeadlineError)
        throw signal?.aborted ? deadline.aborted() : deadline.notStarted();
      if (error instanceof PreemptedError) throw deadline.preempted(error.afterMs);
      throw error;
    }
  }
}
