/**
 * The SQL endpoints' path from an accepted check to the bytes of the answer: one user transaction on a connection of
 * its own, in round trips planned here and nowhere else.
 *
 *   round trip 1   BEGIN [READ ONLY]
 *                  SELECT [set_config(DateStyle, IntervalStyle, extra_float_digits)]   behind a transaction-mode pooler
 *                         <the guard's settings check>, [begin_change(…)], open_user_context(…)
 *                  <the guard's batch of statement 1: SET LOCAL statement_timeout, the statement (direct or cursor)>
 *                  [COMMIT]                                                   a read: behind its last batch
 *   round trip k   <the guard's batch of statement k> [COMMIT]                 scripts: one per further statement
 *   last (writes)  [RESET ROLE; UPDATE the idempotency record]                 with an Idempotency-Key
 *                  COMMIT, or SET CONSTRAINTS ALL IMMEDIATE; ROLLBACK          after the row caps were judged
 *
 * The prelude (BEGIN, settings, context) and the read's COMMIT travel through the guard's one hook for them
 * (`around` of guard.run): the guard sends them in its own round trips and hands their results back. The context
 * (platform/storage/transactions.ts) looks the workspace up as the owner before the role switch; when the lookup finds
 * nothing it raises, nothing behind it runs, and WorkspaceResolution (workspace.ts) decides the answer.
 */
import type { CheckResult, Guard, Mode, PreludeEpilogue, RunResult, SqlSession } from '@expense/sql-guard';
import { clockAt } from '../../platform/clock/clock.js';
import type { ActionBuilder } from '../../platform/http/actions.js';
import type { Claim, IdempotencyStore } from '../../platform/idempotency/store.js';
import type {
  ChangeGroup,
  Database,
  UserConnection,
  UserConnectionOptions,
  UserContext,
  UserScope,
} from '../../platform/storage/database.js';
import { RolledBackError } from '../../platform/storage/engine.js';
import {
  PreemptedError,
  StartDeadlineError,
  WorkspaceNotResolvedError,
} from '../../platform/storage/errors.js';
import { INTERNAL_SCHEMA } from '../../platform/storage/names.js';
import {
  beginStatement,
  contextSelect,
  isWorkspaceNotResolved,
  scopeOf,
} from '../../platform/storage/transactions.js';
import type { Principal } from '../auth/api-keys.js';
import { type FxCoverage, staleRatesInstruction } from '../fx/coverage.js';
import { changeShortId } from './change-short-id.js';
import { type ConfirmClaims, type IssuedToken, spendInTransaction } from './confirm-tokens.js';
import type { ArrivalDeadline } from './deadline.js';
import { successEnvelope } from './envelope.js';
import { wideWrites } from './wide-writes.js';

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
  /** A verified confirmToken: spent in the write's transaction, so it commits once. */
  confirm?: ConfirmClaims;
  /** A write's dry run: issues its confirmToken for the workspace it ran in. */
  issueToken?: (workspaceId: string) => IssuedToken;
  /** The HTTP request's id, for the logs of what the database had to be made to stop. */
  requestId?: string;
  /** The change group a committed write joins (X-Change-Group, X-Change-Label; migration 0042). */
  group?: ChangeGroup;
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
    prelude: (settingsCheck) => [beginStatement(ctx), contextSelect(ctx, settingsCheck, outputSettings)],
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
 * How long a request may keep the embedded engine's one connection while another user (or the server's own work)
 * waits as long, reads and writes alike (a write stopped before its COMMIT is rolled back): one second (a quarter of
 * a short deadline), so that a bystander's request waits about a second plus the engine's restart behind each slow
 * request, not a share of the deadline.
 */
export const FAIR_SLICE_MS = 1_000;
const fairShare = (deadlineMs: number) => Math.min(FAIR_SLICE_MS, Math.max(250, Math.round(deadlineMs / 4)));

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

/** One guarded run in a user transaction (see runGuarded). */
export interface GuardedRun {
  mode: Mode;
  sql: string;
  /** The guard's accepted check of `sql` in `mode`, if the caller has it. */
  checked?: CheckResult;
  /** Roll back at the end (dry runs). A read-only context that does not roll back commits behind its last batch. */
  dryRun: boolean;
  /** When the request arrived (epoch ms): the guard's deadline counts from here. */
  startedAt?: number;
  signal?: AbortSignal;
  /** How the connection is had (tenant, read-only and roll-back come from the context and dryRun). */
  connection?: Pick<UserConnectionOptions, 'startBy' | 'writes' | 'fairShareMs' | 'requestId'>;
  /** Wraps the session the guard runs on (tests that watch what is sent). */
  observe?(session: SqlSession): SqlSession;
}

/**
 * Runs `sql` through the guard in one user transaction under `ctx`, in the round trips planned above. `settle`
 * gets the guard's result and the context's scope once the statements ran, before a write commits (it may add to
 * the transaction through the session); its value is returned after COMMIT (or the dry run's ROLLBACK).
 * Rejects with WorkspaceNotResolvedError when the workspace was a lookup that found nothing (no user SQL ran).
 */
export async function runGuarded<T>(
  db: Database,
  guard: Guard,
  ctx: UserContext,
  run: GuardedRun,
  settle: (result: RunResult, scope: UserScope, session: SqlSession) => Promise<T>,
): Promise<T> {
  contextSelect(ctx); // rejects ids that are not UUIDs before any I/O
  const commitBehindLast = ctx.readOnly && !run.dryRun;
  const options: UserConnectionOptions = {
    tenant: ctx.userId,
    readOnly: ctx.readOnly,
    rollsBack: run.dryRun,
    ...run.connection,
    ...(run.signal ? { signal: run.signal } : {}),
  };
  return db.userConnection(options, async (connection) => {
    // Waiting for the connection counts: a run whose start-by time passed meanwhile runs nothing.
    if (options.startBy !== undefined && Date.now() >= options.startBy) throw new StartDeadlineError();
    const plan = roundTripPlan(ctx, connection.outputSettings, commitBehindLast);
    const session = run.observe ? run.observe(connection.session) : connection.session;
    const result = await guard
      .run(session, run.sql, {
        mode: run.mode,
        ...(run.checked ? { checked: run.checked } : {}),
        ...(run.startedAt === undefined ? {} : { startedAt: run.startedAt }),
        ...(run.signal ? { signal: run.signal } : {}),
        around: plan.around,
        // The change history's rows, written by triggers beside each write, are not the statement's own.
        bookkeepingSchemas: [INTERNAL_SCHEMA],
      })
      .catch((error: unknown) => {
        throw isWorkspaceNotResolved(error) ? new WorkspaceNotResolvedError() : error;
      });
    const value = await settle(result, plan.scope(), connection.session);
    if (commitBehindLast) return value;
    if (run.dryRun) {
      // A dry run of a write runs the deferred checks (balanced transfers) first: it refuses what COMMIT would.
      await connection.session.queryBatch(
        ctx.readOnly ? 'ROLLBACK' : 'SET CONSTRAINTS ALL IMMEDIATE;\nROLLBACK',
      );
    } else {
      await connection.commit();
    }
    return value;
  });
}

export class SqlPipeline {
  constructor(private readonly deps: SqlPipelineDeps) {}

  /**
   * Runs an accepted request in one user transaction (READ ONLY for queries; rolled back for dry runs) in
   * `workspace`, and returns the success envelope as JSON text: the exact bytes sent and, with an
   * Idempotency-Key, recorded in the same transaction. Rejects with WorkspaceNotResolvedError when the workspace
   * was a lookup that found nothing (no user SQL ran).
   */
  async run(call: SqlCall, workspace: UserContext['workspaceId']): Promise<string> {
    const { db, guard, actions, idempotency, fxCoverage } = this.deps;
    const {
      principal,
      mode,
      sql,
      dryRun,
      claim,
      checked,
      deadline,
      signal,
      confirm,
      issueToken,
      requestId,
      group,
    } = call;
    const readOnly = mode === 'query';
    const ctx: UserContext = {
      userId: principal.userId,
      workspaceId: workspace,
      readOnly,
      // A committed write is recorded in the change history (a dry run rolls back: nothing to record).
      ...(!readOnly && !dryRun
        ? {
            change: {
              endpoint: mode,
              connectionId: principal.connectionId,
              sql,
              ...(group ? { group } : {}),
            },
          }
        : {}),
    };
    // Whether old rates were carried forward: a cached range (no round trip), read while the statement runs.
    const coverage = readsDailyRates(checked) ? fxCoverage.peek().catch(() => undefined) : undefined;
    const run: GuardedRun = {
      mode,
      sql,
      checked,
      dryRun,
      startedAt: deadline.arrivedAt,
      ...(signal ? { signal } : {}),
      connection: {
        startBy: deadline.at,
        writes: writtenRelations(checked),
        fairShareMs: fairShare(deadline.deadlineMs),
        ...(requestId ? { requestId } : {}),
      },
    };
    try {
      return await runGuarded(db, guard, ctx, run, async (result, scope, session) => {
        const { workspaceId, timeZone } = scope;
        const clock = clockAt(new Date(), timeZone);
        const range = coverage && (await coverage);
        const staleRates = range && staleRatesInstruction(range, clock.today);
        if (confirm && !dryRun) await spendInTransaction(session, confirm);
        const token = dryRun ? issueToken?.(workspaceId) : undefined;
        const wrote = result.statements.some((s) => s.command !== 'SELECT');
        const changeId = wrote ? scope.changeId : undefined;
        const shortId = changeId ? await changeShortId(session, changeId) : undefined;
        const warnings = dryRun && wrote ? await wideWrites(session, checked, result) : undefined;
        const success = {
          mode,
          dryRun,
          workspaceId,
          result,
          limits: guard.limits,
          clock,
          staleRates,
          changeId,
          shortId,
          token,
          warnings,
        };
        const body = successEnvelope(success, actions);
        if (claim && !dryRun)
          await idempotency.completeInTransaction(session, claim, { statusCode: 200, body });
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
