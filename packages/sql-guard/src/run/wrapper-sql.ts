/**
 * The SQL `run` wraps around each checked statement. Only two things are ever interpolated: the checked
 * statement's own text (exactly one statement as judged by the PostgreSQL parser, comments rejected) and
 * integers. Each statement travels with its wrapper in one simple-protocol round trip when the session
 * supports batches.
 */
import type { CheckedStatement, SessionResult } from '../types.js';
import type { StatementShape } from './statement-shape.js';

export const cursorName = 'sql_guard_cursor';

/**
 * Reading a setting of this (undefined) name fails, so the first batch of a request aborts before the
 * statement runs when the session does not have `standard_conforming_strings = on` (the guard lexes
 * backslashes that way, and PostgreSQL lexes the whole batch before executing any of it) or
 * `track_counts = on` (the write counting below depends on it).
 */
export const configMarker = 'sql_guard.requires_standard_conforming_strings_and_track_counts';

/** The same for a session whose prelude says its output settings are pinned ({@link pinnedOutputSettings}) but has others. */
export const pinnedMarker = 'sql_guard.requires_pinned_output_settings';

const requiredSettings =
  "pg_catalog.current_setting('standard_conforming_strings') = 'on' AND pg_catalog.current_setting('track_counts') = 'on'";
const settingsCheck = `pg_catalog.current_setting(CASE WHEN ${requiredSettings} THEN 'standard_conforming_strings' ELSE '${configMarker}' END) AS s`;

/**
 * The output formats the serializer relies on, for sessions that have them already: connections opened with them
 * as session settings (for PostgreSQL, the startup option `-c DateStyle=ISO -c IntervalStyle=postgres -c
 * extra_float_digits=1`), or a prelude that sets them with SET LOCAL. A run with a prelude
 * (RunOptions.around) skips the three SET LOCALs below; the prelude verifies the values ({@link pinnedSettingsCheck}).
 */
export const pinnedOutputSettings = {
  DateStyle: 'ISO',
  IntervalStyle: 'postgres',
  extra_float_digits: '1',
} as const;

/**
 * A select-list expression that fails (with a clear error from `run`) unless the session has the settings
 * the guard needs and {@link pinnedOutputSettings}. A prelude (RunOptions.around) must evaluate it in the round trip
 * of the first batch, in front of it.
 */
export const pinnedSettingsCheck = `pg_catalog.current_setting(CASE WHEN NOT (${requiredSettings}) THEN '${configMarker}' WHEN pg_catalog.split_part(pg_catalog.current_setting('DateStyle'), ',', 1) = '${pinnedOutputSettings.DateStyle}' AND pg_catalog.current_setting('IntervalStyle') = '${pinnedOutputSettings.IntervalStyle}' AND pg_catalog.current_setting('extra_float_digits') = '${pinnedOutputSettings.extra_float_digits}' THEN 'standard_conforming_strings' ELSE '${pinnedMarker}' END)`;

/**
 * Output formats the serializer relies on; they do not change how input is read. SET LOCAL (not
 * set_config, which a restricted role may not be allowed to execute) keeps them to this transaction.
 */
const outputFormats = [
  'SET LOCAL DateStyle = ISO',
  'SET LOCAL IntervalStyle = postgres',
  'SET LOCAL extra_float_digits = 1',
];

/**
 * Every row this transaction inserted, updated or deleted so far, over all tables (partitions and rows
 * written by triggers and cascades included) but those of the session's bookkeeping schemas. The difference
 * around a statement counts all the rows it wrote, data-modifying CTEs included, on PostgreSQL and PGlite alike.
 */
function writtenRows(bookkeepingSchemas: readonly string[]): string {
  const names = bookkeepingSchemas.map((name) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name))
      throw new TypeError(`bookkeeping schema ${name}: not a plain identifier`);
    return `'${name}'`;
  });
  const kept =
    names.length === 0
      ? ''
      : ` AND c.relnamespace NOT IN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname IN (${names.join(', ')}))`;
  return `(SELECT COALESCE(pg_catalog.sum(pg_catalog.pg_stat_get_xact_tuples_inserted(c.oid) + pg_catalog.pg_stat_get_xact_tuples_updated(c.oid) + pg_catalog.pg_stat_get_xact_tuples_deleted(c.oid)), 0)::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind = 'r' AND c.relnamespace <> 11${kept})`;
}

/** The name of the column the measuring wrapper adds (quoted: no checked statement can name a column so). */
export const rowCheckColumn = 'sql-guard row check';

/**
 * The text the measuring wrapper casts to an integer, which fails, for the first row that takes the statement's
 * rows past their byte cap, before that row is sent. A cast of a CASE (not of a constant, which the planner
 * would fold) needs no function the session's role may lack: a SQL role that may execute only its dialect's
 * functions still gets this error rather than "permission denied".
 */
export const tooLargeMarker = 'sql_guard.result_too_large';

/**
 * `SELECT alias.*, <check> FROM source`: the database measures each row as the octet length of its text form
 * (`alias::text`, at least the bytes of its values on the wire) and keeps a running total; the first row that
 * takes the total past `maxRowBytes` fails with {@link tooLargeMarker} before it is sent. With `measuredRows`,
 * only the first so many rows can fail (the ones a cursor FETCHes, not the ones its MOVE passes over).
 */
function measured(source: string, alias: string, maxRowBytes: number, measuredRows?: number): string {
  const frame = 'OVER (ROWS UNBOUNDED PRECEDING)';
  const over = `pg_catalog.sum(pg_catalog.octet_length(${alias}::pg_catalog.text)) ${frame} > ${integer(maxRowBytes)}`;
  const when =
    measuredRows === undefined
      ? over
      : `pg_catalog.count(*) ${frame} <= ${integer(measuredRows)} AND ${over}`;
  return `SELECT ${alias}.*, (CASE WHEN ${when} THEN '${tooLargeMarker}' END)::pg_catalog.int4 AS "${rowCheckColumn}" FROM ${source}`;
}

/** What a plan's results say about its statement. */
export interface PlannedOutcome {
  fields: SessionResult['fields'];
  rows: SessionResult['rows'];
  /** SELECT through a cursor or run whole: every row it produced. Writes: the rows RETURNING produced. */
  totalRowCount: number;
  /** Writes: the command tag's count (rows affected). */
  tagged?: number;
  /** Writes: rows written in the transaction before (when the plan counted them) and after the statement. */
  writtenBefore?: number;
  writtenAfter?: number;
}

export interface StatementPlan {
  /** Statements to send, in order (one batch, or one query each). */
  parts: string[];
  /** Results of SET commands at the start of the first part, which come before the parts' own results. */
  leadingResults: number;
  /** Which part holds the checked statement, and where in that part it starts. */
  statementPart: number;
  statementStart: number;
  /**
   * A read through a cursor; a read that provably returns at most maxReturnedRows rows (run directly, all its
   * rows are the total); or a statement that may write (run directly, rows counted).
   */
  shape: 'cursor' | 'bounded' | 'direct';
  /** Whether the database measures the rows against `maxRowBytes` before sending them. */
  measured: boolean;
  /** Reads this plan's results (one per part, the leading SET results already dropped). */
  read(results: SessionResult[]): PlannedOutcome;
}

/**
 * Fails (SQLSTATE 25P01) unless the session is inside a transaction block, before anything else of the first batch
 * runs: outside one, each batch would commit on its own and a failing script would leave its first statements
 * behind. A multi-statement batch's implicit transaction does not count (PostgreSQL refuses SAVEPOINT there too).
 */
const transactionProbe = ['SAVEPOINT sql_guard_transaction', 'RELEASE SAVEPOINT sql_guard_transaction'];

export interface PlanOptions {
  first: boolean;
  /** Prove, in the first batch, that the session is inside a transaction block (the prelude did not show it). */
  probeTransaction: boolean;
  /** Schemas whose written rows are not the statement's (RunOptions.bookkeepingSchemas). */
  bookkeepingSchemas: readonly string[];
  last: boolean;
  timeoutMs: number;
  maxReturnedRows: number;
  /** Include the written-row count before the statement (the first writing statement of the request). */
  countBefore: boolean;
  /** What the statement's parse tree says (see statement-shape.ts). */
  statementShape: StatementShape;
  /**
   * The byte cap of this statement's rows in the database's measure (their text form), see {@link measured}.
   */
  maxRowBytes: number;
  /**
   * A read whose rows provably fit the budget left (lean.ts): it runs without the measuring wrapper, as written
   * (behind the cursor's DECLARE when it has no LIMIT within the row cap).
   */
  lean: boolean;
  /** A prelude in the same round trip verifies the settings ({@link pinnedSettingsCheck}): none set, none checked here. */
  settingsChecked: boolean;
  /** An epilogue ends the transaction behind the last batch: no reset of statement_timeout. */
  endsAfterLast: boolean;
}

export function planStatement(statement: CheckedStatement, options: PlanOptions): StatementPlan {
  const settings = [
    ...(options.first && options.probeTransaction ? transactionProbe : []),
    `SET LOCAL statement_timeout = ${integer(options.timeoutMs)}`,
  ];
  const checks: string[] = [];
  if (options.first && !options.settingsChecked) {
    settings.push(...outputFormats);
    checks.push(settingsCheck);
  }
  const readOnlySelect = statement.kind === 'select' && statement.readOnly;
  const bounded =
    readOnlySelect &&
    options.statementShape.limit !== null &&
    options.statementShape.limit <= options.maxReturnedRows;
  const shape = !statement.readOnly ? 'direct' : bounded ? 'bounded' : 'cursor';
  const cursor = shape === 'cursor';
  const written = writtenRows(options.bookkeepingSchemas);
  if (!cursor && options.countBefore) checks.push(`${written} AS n`);
  // The first part yields one result of its own: the checks' row, or (nothing to check) the last SET's.
  const parts = [
    (checks.length > 0 ? [...settings, `SELECT 1 AS t, ${checks.join(', ')}`] : settings).join(
      batchSeparator,
    ),
  ];
  // The newline ends the statement's last token even if it were a line comment (comments are rejected anyway).
  const body = `${statement.sql}\n`;
  const cap = options.maxRowBytes;
  // A write's RETURNING rows are measured through a data-modifying CTE; one that has data-modifying CTEs of its
  // own cannot be nested so (PostgreSQL allows those only at the top level) and is measured on arrival only.
  const measuredWrite =
    statement.kind !== 'select' && options.statementShape.returning && !options.statementShape.dmlInWith;
  let statementStart = 0;
  let read: StatementPlan['read'];
  const lean = readOnlySelect && options.lean;
  if (cursor) {
    const declare = `DECLARE ${cursorName} NO SCROLL CURSOR FOR ${lean ? '' : measured('(\n', 'q', cap, options.maxReturnedRows)}`;
    statementStart = declare.length;
    parts.push(
      `${declare}${body}${lean ? '' : ') q'}`,
      `FETCH FORWARD ${integer(options.maxReturnedRows)} FROM ${cursorName}`,
      `MOVE FORWARD ALL IN ${cursorName}`,
      `CLOSE ${cursorName}`,
    );
    read = (results) => {
      const fetched = resultAt(results, 2);
      const moved = results[3]?.rowCount ?? 0;
      return {
        fields: withoutCheck(fetched.fields),
        rows: fetched.rows,
        totalRowCount: fetched.rows.length + moved,
      };
    };
  } else if (shape === 'bounded') {
    const select = lean ? '' : measured('(\n', 'q', cap);
    statementStart = select.length;
    parts.push(lean ? body : `${select}${body}) q`);
    read = (results) => {
      const result = resultAt(results, 1);
      return { fields: withoutCheck(result.fields), rows: result.rows, totalRowCount: result.rows.length };
    };
  } else {
    const counted = options.countBefore;
    if (measuredWrite) {
      const prefix = 'WITH sql_guard_rows AS (\n';
      statementStart = prefix.length;
      parts.push(`${prefix}${body}) ${measured('sql_guard_rows r', 'r', cap)}`);
    } else {
      parts.push(body);
    }
    parts.push(`SELECT ${written} AS n`);
    read = (results) => {
      const result = resultAt(results, 1);
      return {
        fields: measuredWrite ? withoutCheck(result.fields) : result.fields,
        rows: result.rows,
        totalRowCount: result.rows.length,
        tagged: result.rowCount ?? 0,
        ...(counted ? { writtenBefore: countOf(results[0]) } : {}),
        writtenAfter: countOf(results[2]),
      };
    };
  }
  // Hand the transaction back with the session's own statement_timeout.
  if (options.last && !options.endsAfterLast) parts.push('SET LOCAL statement_timeout TO DEFAULT');
  return {
    parts,
    leadingResults: checks.length > 0 ? settings.length : settings.length - 1,
    statementPart: 1,
    statementStart,
    shape,
    measured: (shape !== 'direct' && !lean) || measuredWrite,
    read,
  };
}

function resultAt(results: SessionResult[], index: number): SessionResult {
  const result = results[index];
  if (!result) throw new Error(`sql-guard: result ${index} of the statement is missing`);
  return result;
}

function withoutCheck(fields: SessionResult['fields']): SessionResult['fields'] {
  return fields.filter((f) => f.name !== rowCheckColumn);
}

function countOf(result: SessionResult | undefined): number {
  const row = result?.rows[0] as Record<string, unknown> | undefined;
  const n = Number(row?.n);
  if (!Number.isFinite(n)) throw new Error('sql-guard: the written-row count is missing from the result');
  return n;
}

/** Separator between the parts of a batch. */
export const batchSeparator = ';\n';

function integer(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`expected a non-negative integer, got ${n}`);
  return String(n);
}
