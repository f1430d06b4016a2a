import type {
  CheckedStatement,
  CheckOptions,
  CheckResult,
  Limits,
  RunOptions,
  RunResult,
  SessionResult,
  SqlSession,
  StatementResult,
} from '../types.js';
import { Deadline } from './deadline.js';
import { GuardCheckError, GuardRunError, type RunErrorDetails } from './errors.js';
import { offsetOfCharacter, positionAt } from './position.js';
import { withinRowCap } from './row-bound.js';
import { type JsonValue, toJsonValue } from './serialize.js';
import { resolveTypes, typeInfo } from './types-catalog.js';
import {
  batchSeparator,
  configMarker,
  cursorName,
  pinnedMarker,
  planStatement,
  type SessionHints,
  type StatementPlan,
} from './wrapper-sql.js';

type Check = (sql: string, options: CheckOptions) => CheckResult;

/** A statement's rows as the driver gave them, before conversion to JSON. */
interface RawStatement {
  index: number;
  command: StatementResult['command'];
  fields: SessionResult['fields'];
  rows: SessionResult['rows'];
  rowCount: number;
  totalRowCount: number;
}

/**
 * Checks `sql`, then runs its statements in the caller's open transaction within `limits`.
 * Never issues BEGIN, COMMIT or ROLLBACK; on any error the caller must roll back.
 */
export async function runChecked(
  check: Check,
  limits: Limits,
  session: SqlSession,
  sql: string,
  options: RunOptions,
): Promise<RunResult> {
  const checked = check(sql, { mode: options.mode });
  if (!checked.ok) throw new GuardCheckError(checked.error);
  return runStatements(checked.statements, limits, session, sql, options);
}

/**
 * Runs statements that `check` accepted for `sql` (the caller vouches for that: the guard passes only its
 * own results). Never issues BEGIN, COMMIT or ROLLBACK; on any error the caller must roll back.
 */
export async function runStatements(
  statements: readonly CheckedStatement[],
  limits: Limits,
  session: SqlSession,
  sql: string,
  options: RunOptions,
): Promise<RunResult> {
  let inFlight = false;
  let cancelling: Promise<void> = Promise.resolve();
  const deadline = new Deadline(limits.deadlineMs, options.signal, () => {
    if (inFlight && session.cancel) cancelling = session.cancel().catch(() => undefined);
  });
  const stopped = async (statementIndex: number): Promise<GuardRunError> => {
    await cancelling;
    return deadlineError(deadline.reason ?? 'deadline', limits.deadlineMs, statementIndex);
  };

  const hints = session as SessionHints;
  try {
    const raw: RawStatement[] = [];
    let writtenSoFar: number | undefined;
    let affectedInRequest = 0;
    for (const [index, statement] of statements.entries()) {
      if (deadline.reason) throw await stopped(index);
      const plan = planStatement(statement, {
        first: index === 0,
        last: index === statements.length - 1,
        timeoutMs: deadline.remainingMs(),
        maxReturnedRows: limits.maxReturnedRows,
        countBefore: !statement.readOnly && writtenSoFar === undefined,
        bounded: withinRowCap(statement, limits.maxReturnedRows),
        pinnedSettings: !hints.outputSettingsPinned
          ? false
          : hints.settingsCheckedInFirstRoundTrip && session.queryBatch
            ? 'checked'
            : 'verify',
        endsAfterLast: session.queryBatch !== undefined && hints.endsTransactionAfterLastBatch === true,
      });
      let results: SessionResult[];
      inFlight = true;
      try {
        results = await execute(session, plan, index === statements.length - 1);
      } catch (error) {
        if (deadline.reason) throw await stopped(index);
        throw toRunError(error, { plan, statement, index, sql, session, limits });
      } finally {
        inFlight = false;
      }
      if (deadline.reason) throw await stopped(index);

      if (plan.shape === 'cursor') {
        const fetched = results[2] as SessionResult;
        const moved = results[3]?.rowCount ?? 0;
        const total = fetched.rows.length + moved;
        raw.push({
          index,
          command: 'SELECT',
          fields: fetched.fields,
          rows: fetched.rows,
          rowCount: total,
          totalRowCount: total,
        });
        continue;
      }
      if (plan.shape === 'bounded') {
        // Every row of the statement is here (it provably returns at most maxReturnedRows), so the count is
        // exact; the slice keeps the cap a hard one all the same.
        const result = results[1] as SessionResult;
        raw.push({
          index,
          command: 'SELECT',
          fields: result.fields,
          rows: result.rows.slice(0, limits.maxReturnedRows),
          rowCount: result.rows.length,
          totalRowCount: result.rows.length,
        });
        continue;
      }

      const result = results[1] as SessionResult;
      const before = writtenSoFar ?? countOf(results[0]);
      writtenSoFar = countOf(results[2]);
      const tagged = statement.kind === 'select' ? 0 : (result.rowCount ?? 0);
      const affected = Math.max(writtenSoFar - before, tagged);
      if (affected > limits.maxAffectedRows) throw rowLimitError(index, affected, limits, 'statement');
      affectedInRequest += affected;
      if (affectedInRequest > limits.maxAffectedRows) {
        throw rowLimitError(index, affectedInRequest, limits, 'request');
      }
      const command = statement.kind.toUpperCase() as StatementResult['command'];
      const total = result.rows.length;
      raw.push({
        index,
        command,
        fields: result.fields,
        rows: result.rows.slice(0, limits.maxReturnedRows),
        rowCount: statement.kind === 'select' ? total : tagged,
        totalRowCount: total,
      });
    }

    await resolveTypes(
      session,
      raw.flatMap((s) => s.fields.map((f) => f.dataTypeID)),
    );
    return { statements: raw.map((s) => toStatementResult(session, s)) };
  } finally {
    deadline.dispose();
  }
}

async function execute(session: SqlSession, plan: StatementPlan, last: boolean): Promise<SessionResult[]> {
  if (session.queryBatch) {
    const results = await session.queryBatch(plan.parts.join(batchSeparator), { last });
    const expected = plan.leadingResults + plan.parts.length;
    if (results.length !== expected) {
      throw new Error(`sql-guard: expected ${expected} results from the batch, got ${results.length}`);
    }
    return results.slice(plan.leadingResults);
  }
  const results: SessionResult[] = [];
  for (const part of plan.parts) results.push(await session.query(part));
  return results;
}

function countOf(result: SessionResult | undefined): number {
  const row = result?.rows[0] as Record<string, unknown> | undefined;
  const n = Number(row?.n);
  if (!Number.isFinite(n)) throw new Error('sql-guard: the written-row count is missing from the result');
  return n;
}

function toStatementResult(session: SqlSession, s: RawStatement): StatementResult {
  const lookup = (oid: number) => typeInfo(session, oid);
  const types = s.fields.map((f) => lookup(f.dataTypeID));
  const rows = s.rows.map((row) => {
    const out: Record<string, JsonValue> = {};
    s.fields.forEach((field, i) => {
      out[field.name] = toJsonValue((row as Record<string, unknown>)[field.name], types[i], lookup);
    });
    return out;
  });
  return {
    index: s.index,
    command: s.command,
    columns: s.fields.map((f, i) => ({ name: f.name, type: types[i]?.name ?? 'unknown' })),
    rows,
    rowCount: s.rowCount,
    returnedRowCount: rows.length,
    totalRowCount: s.totalRowCount,
    truncated: rows.length < s.totalRowCount,
  };
}

function deadlineError(
  reason: 'deadline' | 'aborted',
  deadlineMs: number,
  statementIndex: number,
): GuardRunError {
  return reason === 'aborted'
    ? new GuardRunError('deadline_exceeded', 'The request was aborted before it finished.', {
        statementIndex,
        aborted: true,
      })
    : new GuardRunError(
        'deadline_exceeded',
        `The request did not finish within ${deadlineMs} ms.`,
        { statementIndex, deadlineMs },
        'Narrow the statement (filters, fewer joins) or split the work into smaller requests.',
      );
}

function rowLimitError(
  statementIndex: number,
  affectedRows: number,
  limits: Limits,
  scope: 'statement' | 'request',
): GuardRunError {
  const where =
    scope === 'statement' ? `Statement ${statementIndex + 1} would change` : 'The request would change';
  return new GuardRunError(
    'mutation_row_limit_exceeded',
    `${where} ${affectedRows} rows; at most ${limits.maxAffectedRows} rows may change per ${scope}.`,
    { statementIndex, affectedRows, maxAffectedRows: limits.maxAffectedRows, scope },
    'Add a WHERE clause that selects fewer rows, or split the change into smaller requests.',
  );
}

interface DatabaseErrorLike {
  code?: unknown;
  message?: unknown;
  position?: unknown;
  constraint?: unknown;
  column?: unknown;
  table?: unknown;
  dataType?: unknown;
  detail?: unknown;
  hint?: unknown;
}

const optionalString = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;

function toRunError(
  error: unknown,
  context: {
    plan: StatementPlan;
    statement: CheckedStatement;
    index: number;
    sql: string;
    session: SqlSession;
    limits: Limits;
  },
): unknown {
  const e = error as DatabaseErrorLike | null;
  const sqlstate = typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
  if (!e || !sqlstate) return error; // not PostgreSQL speaking (connection lost, driver bug): rethrow as is
  const message = String(e.message ?? 'The statement failed.');
  if (sqlstate === '57014') return deadlineError('deadline', context.limits.deadlineMs, context.index);
  if (message.includes(configMarker)) {
    return new Error(
      'sql-guard: the session must run with standard_conforming_strings = on and track_counts = on (the PostgreSQL defaults); nothing was run.',
    );
  }
  if (message.includes(pinnedMarker)) {
    return new Error(
      'sql-guard: the session says its output settings are pinned, but it does not run with DateStyle = ISO, IntervalStyle = postgres and extra_float_digits = 1; nothing was run.',
    );
  }
  const details: RunErrorDetails = { statementIndex: context.index, sqlstate };
  const position = mapPosition(Number(e.position), context);
  if (position) details.position = position;
  for (const key of ['constraint', 'column', 'table', 'dataType', 'detail'] as const) {
    const value = optionalString(e[key]);
    if (value !== undefined) details[key] = value;
  }
  const clean = message.includes(cursorName) ? 'The statement failed.' : message;
  return new GuardRunError('sql_execution_failed', clean, details, optionalString(e.hint));
}

function mapPosition(
  characters: number,
  {
    plan,
    statement,
    sql,
    session,
  }: { plan: StatementPlan; statement: CheckedStatement; sql: string; session: SqlSession },
): ReturnType<typeof positionAt> | undefined {
  if (!Number.isInteger(characters) || characters < 1) return undefined;
  // The position counts characters in the text sent: the whole batch, or the statement's own part.
  const sent = session.queryBatch
    ? plan.parts.join(batchSeparator)
    : (plan.parts[plan.statementPart] as string);
  const partStart = session.queryBatch
    ? plan.parts.slice(0, plan.statementPart).reduce((n, part) => n + part.length + batchSeparator.length, 0)
    : 0;
  const within = offsetOfCharacter(sent, characters) - partStart - plan.statementStart;
  if (within < 0 || within > statement.sql.length) return undefined;
  return positionAt(sql, statement.location.offset + within);
}
