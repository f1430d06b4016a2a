/**
 * The SQL `run` wraps around each checked statement. Only two things are ever interpolated: the checked
 * statement's own text (exactly one statement as judged by the PostgreSQL parser, comments rejected) and
 * integers. Each statement travels with its wrapper in one simple-protocol round trip when the session
 * supports batches.
 */
import type { CheckedStatement } from '../types.js';

export const cursorName = 'sql_guard_cursor';

/**
 * Reading a setting of this (undefined) name fails, so the first batch of a request aborts before the
 * statement runs when the session does not have `standard_conforming_strings = on` (the guard lexes
 * backslashes that way, and PostgreSQL lexes the whole batch before executing any of it) or
 * `track_counts = on` (the write counting below depends on it).
 */
export const configMarker = 'sql_guard.requires_standard_conforming_strings_and_track_counts';

/** The same for a session that says its output settings are pinned ({@link pinnedOutputSettings}) but has others. */
export const pinnedMarker = 'sql_guard.requires_pinned_output_settings';

const requiredSettings =
  "pg_catalog.current_setting('standard_conforming_strings') = 'on' AND pg_catalog.current_setting('track_counts') = 'on'";
const settingsCheck = `pg_catalog.current_setting(CASE WHEN ${requiredSettings} THEN 'standard_conforming_strings' ELSE '${configMarker}' END) AS s`;

/**
 * The output formats the serializer relies on, for connections opened with them as session settings (for
 * PostgreSQL, the startup option `-c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=1`).
 * Such a session skips the three SET LOCALs below; `run` verifies the values instead, in the same check.
 */
export const pinnedOutputSettings = {
  DateStyle: 'ISO',
  IntervalStyle: 'postgres',
  extra_float_digits: '1',
} as const;

/** What a session may tell `run` about itself, beyond SqlSession. */
export interface SessionHints {
  /** It runs with {@link pinnedOutputSettings} (verified in the first round trip, not set). */
  outputSettingsPinned?: boolean;
  /**
   * It ends the transaction right behind the batch marked `last` (COMMIT or ROLLBACK in the same round trip),
   * so `statement_timeout` need not be set back: SET LOCAL ends with the transaction.
   */
  endsTransactionAfterLastBatch?: boolean;
  /**
   * With `outputSettingsPinned`: the session puts {@link pinnedSettingsCheck} into its own first round trip,
   * in front of the first batch (as the expense server does in its context SELECT), so `run` does not repeat it.
   */
  settingsCheckedInFirstRoundTrip?: boolean;
}

/**
 * A select-list expression that fails (with a clear error from `run`) unless the session has the settings
 * the guard needs and {@link pinnedOutputSettings}. A session that pins its settings and says
 * `settingsCheckedInFirstRoundTrip` must evaluate it in the round trip of the first batch, before it.
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
 * written by triggers and cascades included). The difference around a statement counts all the rows it
 * wrote, data-modifying CTEs included, on PostgreSQL and PGlite alike.
 */
const writtenRows =
  "(SELECT COALESCE(pg_catalog.sum(pg_catalog.pg_stat_get_xact_tuples_inserted(c.oid) + pg_catalog.pg_stat_get_xact_tuples_updated(c.oid) + pg_catalog.pg_stat_get_xact_tuples_deleted(c.oid)), 0)::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind = 'r' AND c.relnamespace <> 11)";

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
}

export interface PlanOptions {
  first: boolean;
  last: boolean;
  timeoutMs: number;
  maxReturnedRows: number;
  /** Include the written-row count before the statement (the first writing statement of the request). */
  countBefore: boolean;
  /** A read that provably returns at most maxReturnedRows rows (see row-bound.ts): no cursor needed. */
  bounded: boolean;
  /**
   * The session runs with {@link pinnedOutputSettings}: verify them instead of setting them ('checked': the
   * session verifies them in the same round trip itself).
   */
  pinnedSettings: false | 'verify' | 'checked';
  /** The session ends the transaction behind the last batch: no reset of statement_timeout. */
  endsAfterLast: boolean;
}

export function planStatement(statement: CheckedStatement, options: PlanOptions): StatementPlan {
  const settings = [`SET LOCAL statement_timeout = ${integer(options.timeoutMs)}`];
  const checks: string[] = [];
  if (options.first && options.pinnedSettings === 'verify') checks.push(`${pinnedSettingsCheck} AS s`);
  else if (options.first && !options.pinnedSettings) {
    settings.push(...outputFormats);
    checks.push(settingsCheck);
  }
  const shape = !statement.readOnly ? 'direct' : options.bounded ? 'bounded' : 'cursor';
  const cursor = shape === 'cursor';
  if (!cursor && options.countBefore) checks.push(`${writtenRows} AS n`);
  // The first part yields one result of its own: the checks' row, or (nothing to check) the last SET's.
  const parts = [
    (checks.length > 0 ? [...settings, `SELECT 1 AS t, ${checks.join(', ')}`] : settings).join(
      batchSeparator,
    ),
  ];
  // The newline ends the statement's last token even if it were a line comment (comments are rejected anyway).
  const body = `${statement.sql}\n`;
  let statementStart = 0;
  if (cursor) {
    const declare = `DECLARE ${cursorName} NO SCROLL CURSOR FOR `;
    statementStart = declare.length;
    parts.push(
      declare + body,
      `FETCH FORWARD ${integer(options.maxReturnedRows)} FROM ${cursorName}`,
      `MOVE FORWARD ALL IN ${cursorName}`,
      `CLOSE ${cursorName}`,
    );
  } else if (shape === 'bounded') {
    parts.push(body);
  } else {
    parts.push(body, `SELECT ${writtenRows} AS n`);
  }
  // Hand the transaction back with the session's own statement_timeout.
  if (options.last && !options.endsAfterLast) parts.push('SET LOCAL statement_timeout TO DEFAULT');
  return {
    parts,
    leadingResults: checks.length > 0 ? settings.length : settings.length - 1,
    statementPart: 1,
    statementStart,
    shape,
  };
}

/** Separator between the parts of a batch. */
export const batchSeparator = ';\n';

function integer(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`expected a non-negative integer, got ${n}`);
  return String(n);
}
