import { offsetOfCharacter, positionAt } from '../text/offsets.js';
import type {
  CheckedStatement,
  Limits,
  RunOptions,
  RunResult,
  SessionResult,
  SqlSession,
  StatementResult,
} from '../types.js';
import type { ColumnWidths } from './column-widths.js';
import { Deadline } from './deadline.js';
import { GuardRunError, type RunErrorDetails, sqlStateOf } from './errors.js';
import { runsLean } from './lean.js';
import { type JsonValue, toJsonValue } from './serialize.js';
import { statementShape } from './statement-shape.js';
import { resolveTypes, typeInfo } from './types-catalog.js';
import type { Verify } from './verification.js';
import {
  batchSeparator,
  configMarker,
  cursorName,
  pinnedMarker,
  pinnedSettingsCheck,
  planStatement,
  type StatementPlan,
  tooLargeMarker,
} from './wrapper-sql.js';

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
 * Runs statements that `check` accepted for `sql` (the caller vouches for that: the guard passes only its
 * own results). Never issues BEGIN, COMMIT or ROLLBACK; on any error the caller must roll back.
 */
export async function runStatements(
  statements: readonly CheckedStatement[],
  limits: Limits,
  session: SqlSession,
  sql: string,
  options: RunOptions,
  verify: Verify = async () => undefined,
): Promise<RunResult> {
  let inFlight = false;
  let cancelling: Promise<void> = Promise.resolve();
  const startedAt = options.startedAt ?? Date.now();
  if (!Number.isFinite(startedAt)) throw new TypeError('startedAt must be a time in epoch milliseconds');
  const deadline = new Deadline(
    limits.deadlineMs,
    options.signal,
    () => {
      if (inFlight && session.cancel) cancelling = session.cancel().catch(() => undefined);
    },
    startedAt,
  );
  const stopped = async (statementIndex: number): Promise<GuardRunError> => {
    await cancelling;
    return deadlineError(deadline.reason ?? 'deadline', limits.deadlineMs, statementIndex);
  };

  const around = options.around;
  try {
    const prelude = around?.prelude ? [...around.prelude(pinnedSettingsCheck)] : [];
    if (around?.prelude && !prelude.some((statement) => statement.includes(pinnedSettingsCheck))) {
      throw new GuardRunError(
        'session_settings_invalid',
        'The prelude does not evaluate the settings check it is given; nothing was run.',
        {},
        'Put the settings check into a statement of the prelude, e.g. SELECT <check>.',
      );
    }
    // A prelude that opens the transaction proves it; otherwise the first batch does (transactionProbe).
    const probeTransaction = !/^\s*(BEGIN|START\s+TRANSACTION)\b/i.test(prelude[0] ?? '');
    inFlight = true;
    // The column widths of the dialect's relations, when a read may do without measuring (lean.ts).
    const plainRead = statements.some(
      (s) => s.kind === 'select' && s.readOnly && statementShape(s).output !== null,
    );
    let widths: ColumnWidths | undefined;
    try {
      widths = await verify(session, plainRead, probeTransaction);
    } catch (error) {
      if (deadline.reason) throw await stopped(0);
      throw error;
    } finally {
      inFlight = false;
    }
    const epilogue = around?.epilogue ? [...around.epilogue] : [];
    const out: StatementResult[] = [];
    let writtenSoFar: number | undefined;
    let affectedInRequest = 0;
    let resultBytes = 0;
    for (const [index, statement] of statements.entries()) {
      if (deadline.reason) throw await stopped(index);
      const remainingBytes = Math.max(0, limits.maxResultBytes - resultBytes);
      const first = index === 0;
      const last = index === statements.length - 1;
      const shape = statementShape(statement);
      const plan = planStatement(statement, {
        first,
        probeTransaction,
        last,
        bookkeepingSchemas: options.bookkeepingSchemas ?? [],
        timeoutMs: deadline.remainingMs(),
        maxReturnedRows: limits.maxReturnedRows,
        countBefore: !statement.readOnly && writtenSoFar === undefined,
        statementShape: shape,
        maxRowBytes: databaseByteCap(remainingBytes),
        lean:
          statement.kind === 'select' &&
          statement.readOnly &&
          runsLean(
            {
              output: shape.output,
              limit: shape.limit,
              maxReturnedRows: limits.maxReturnedRows,
              remainingBytes,
            },
            widths,
          ),
        settingsChecked: around?.prelude !== undefined,
        endsAfterLast: epilogue.length > 0,
      });
      const framed: Framed = { plan, before: first ? prelude : [], after: last ? epilogue : [] };
      let results: SessionResult[];
      inFlight = true;
      try {
        results = await execute(session, framed, last, around);
      } catch (error) {
        if (deadline.reason) throw await stopped(index);
        throw toRunError(error, { framed, statement, index, sql, session, limits });
      } finally {
        inFlight = false;
      }
      if (deadline.reason) throw await stopped(index);

      const outcome = plan.read(results);
      let raw: RawStatement;
      if (plan.shape !== 'direct') {
        // A cursor FETCHed at most maxReturnedRows; a bounded read provably returned at most that many (the
        // slice keeps the cap a hard one all the same), so its count is exact.
        raw = {
          index,
          command: 'SELECT',
          fields: outcome.fields,
          rows: outcome.rows.slice(0, limits.maxReturnedRows),
          rowCount: outcome.totalRowCount,
          totalRowCount: outcome.totalRowCount,
        };
      } else {
        const before = writtenSoFar ?? outcome.writtenBefore ?? 0;
        writtenSoFar = outcome.writtenAfter ?? before;
        const tagged = statement.kind === 'select' ? 0 : (outcome.tagged ?? 0);
        const affected = Math.max(writtenSoFar - before, tagged);
        if (affected > limits.maxAffectedRows) throw rowLimitError(index, affected, limits, 'statement');
        affectedInRequest += affected;
        if (affectedInRequest > limits.maxAffectedRows) {
          throw rowLimitError(index, affectedInRequest, limits, 'request');
        }
        raw = {
          index,
          command: statement.kind.toUpperCase() as StatementResult['command'],
          fields: outcome.fields,
          rows: outcome.rows.slice(0, limits.maxReturnedRows),
          rowCount: statement.kind === 'select' ? outcome.totalRowCount : tagged,
          totalRowCount: outcome.totalRowCount,
        };
      }
      // Measured as they arrive: the rows' JSON text, all statements together.
      await resolveTypes(
        session,
        raw.fields.map((f) => f.dataTypeID),
      );
      const result = toStatementResult(session, raw);
      for (const row of result.rows) {
        resultBytes += Buffer.byteLength(JSON.stringify(row));
        if (resultBytes > limits.maxResultBytes) throw tooLargeError(index, limits);
      }
      out.push(result);
    }
    return { statements: out };
  } finally {
    deadline.dispose();
  }
}

/**
 * The database measures a row by its text form (`row::text`), the client by its JSON text. A row's text form is
 * at most twice its JSON form (each value's text, quoted and with quotes and backslashes doubled, against the
 * JSON value plus its `"name":`), so capping the database's measure at twice the bytes left never refuses a
 * result the JSON measure accepts, and bounds what travels to twice the budget.
 */
function databaseByteCap(remainingBytes: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, 2 * remainingBytes);
}

/** A statement's plan with the caller's prelude in front (first statement) and epilogue behind (last). */
interface Framed {
  plan: StatementPlan;
  before: readonly string[];
  after: readonly string[];
}

/** The texts sent, in order: the prelude's statements, the plan's parts, the epilogue's statements. */
const textsOf = ({ plan, before, after }: Framed): string[] => [...before, ...plan.parts, ...after];

async function execute(
  session: SqlSession,
  framed: Framed,
  last: boolean,
  around: RunOptions['around'],
): Promise<SessionResult[]> {
  const { plan, before, after } = framed;
  let all: SessionResult[];
  if (session.queryBatch) {
    all = await session.queryBatch(textsOf(framed).join(batchSeparator), { last });
    const expected = before.length + plan.leadingResults + plan.parts.length + after.length;
    if (all.length !== expected) {
      throw new Error(`sql-guard: expected ${expected} results from the batch, got ${all.length}`);
    }
    all = [...all.slice(0, before.length), ...all.slice(before.length + plan.leadingResults)];
  } else {
    all = [];
    for (const text of textsOf(framed)) all.push(await session.query(text));
  }
  if (before.length > 0) around?.answered?.('prelude', all.slice(0, before.length));
  if (after.length > 0) around?.answered?.('epilogue', all.slice(all.length - after.length));
  return all.slice(before.length, all.length - after.length);
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

function noTransactionError(): GuardRunError {
  return new GuardRunError(
    'no_transaction',
    'The session is not inside a transaction block, so a failing statement could leave earlier ones committed; nothing was run.',
    {},
    'Send BEGIN before run and COMMIT after it (ROLLBACK on any error), or call runInTransaction.',
  );
}

function tooLargeError(statementIndex: number, limits: Limits): GuardRunError {
  return new GuardRunError(
    'result_too_large',
    `The rows of the request take more than ${limits.maxResultBytes} bytes as JSON.`,
    { statementIndex, maxResultBytes: limits.maxResultBytes },
    'Select fewer or shorter columns, or aggregate.',
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
  routine?: unknown;
}

const optionalString = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;

function toRunError(
  error: unknown,
  context: {
    framed: Framed;
    statement: CheckedStatement;
    index: number;
    sql: string;
    session: SqlSession;
    limits: Limits;
  },
): unknown {
  const e = error as DatabaseErrorLike | null;
  const sqlstate = sqlStateOf(error);
  if (!e || !sqlstate) return error; // not PostgreSQL speaking (connection lost, driver bug): rethrow as is
  const message = String(e.message ?? 'The statement failed.');
  if (sqlstate === '57014') return deadlineError('deadline', context.limits.deadlineMs, context.index);
  if (sqlstate === '25P01') return noTransactionError();
  // The marker is the value the wrapper casts (wrapper-sql.ts); PostgreSQL's words around it depend on its language.
  if (sqlstate === '22P02' && message.includes(tooLargeMarker)) {
    return tooLargeError(context.index, context.limits);
  }
  if (message.includes(configMarker)) {
    return new GuardRunError(
      'session_settings_invalid',
      'The session must run with standard_conforming_strings = on and track_counts = on (the PostgreSQL defaults); nothing was run.',
      {},
      'Open the connection with the PostgreSQL defaults for these settings.',
    );
  }
  if (message.includes(pinnedMarker)) {
    return new GuardRunError(
      'session_settings_invalid',
      'The session says its output settings are pinned, but it does not run with DateStyle = ISO, IntervalStyle = postgres and extra_float_digits = 1; nothing was run.',
      {},
      'Open the connection with these settings (pgOutputSettingsOption), or SET LOCAL them in the prelude before the check.',
    );
  }
  const details: RunErrorDetails = { statementIndex: context.index, sqlstate };
  const position = mapPosition(Number(e.position), context);
  if (position) details.position = position;
  for (const key of ['constraint', 'column', 'table', 'dataType', 'detail', 'routine'] as const) {
    const value = optionalString(e[key]);
    if (value !== undefined) details[key] = value;
  }
  const clean = message.includes(cursorName) ? 'The statement failed.' : message;
  return new GuardRunError('sql_execution_failed', clean, details, optionalString(e.hint));
}

function mapPosition(
  characters: number,
  {
    framed,
    statement,
    sql,
    session,
  }: { framed: Framed; statement: CheckedStatement; sql: string; session: SqlSession },
): ReturnType<typeof positionAt> | undefined {
  if (!Number.isInteger(characters) || characters < 1) return undefined;
  const { plan } = framed;
  // The position counts characters in the text sent: the whole batch, or the statement's own part.
  const texts = textsOf(framed);
  const at = framed.before.length + plan.statementPart;
  const sent = session.queryBatch ? texts.join(batchSeparator) : (texts[at] as string);
  const partStart = session.queryBatch
    ? texts.slice(0, at).reduce((n, part) => n + part.length + batchSeparator.length, 0)
    : 0;
  const within = offsetOfCharacter(sent, characters) - partStart - plan.statementStart;
  if (within < 0 || within > statement.sql.length) return undefined;
  return positionAt(sql, statement.location.offset + within);
}
