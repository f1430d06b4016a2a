import type { DialectDifference, GuardErrorCode, GuardViolation, Position, RunErrorCode } from '../types.js';

/** What PostgreSQL said about a failed statement, in terms of the text the caller submitted. */
export interface RunErrorDetails {
  /** 0-based index of the checked statement that failed or hit the limit. */
  statementIndex?: number;
  /** PostgreSQL's SQLSTATE (sql_execution_failed; 57014 for a cancelled statement). */
  sqlstate?: string;
  /** Where PostgreSQL points, within the submitted text (not within the statement alone). */
  position?: Position;
  constraint?: string;
  column?: string;
  table?: string;
  dataType?: string;
  detail?: string;
  /**
   * The PostgreSQL function that raised it (the ErrorResponse's R field): unlike the message, the same in every
   * language the server may speak, so it tells errors of one SQLSTATE apart (isRowSecurityRefusal).
   */
  routine?: string;
  /** mutation_row_limit_exceeded: the rows counted and the limit they passed. */
  affectedRows?: number;
  maxAffectedRows?: number;
  scope?: 'statement' | 'request';
  /** deadline_exceeded: whether the caller's AbortSignal (not the deadline) stopped the request. */
  aborted?: boolean;
  deadlineMs?: number;
  /** result_too_large: the budget the returned rows passed (bytes of JSON text, all statements together). */
  maxResultBytes?: number;
  /** dialect_drift: every way the dialect differs from the session's database. */
  differences?: DialectDifference[];
}

/**
 * A refusal or failure of `run`, with its code. The caller must roll its transaction back. A refusal of the text
 * itself is the subclass GuardCheckError (its code is the check's).
 */
export class GuardRunError<Code extends string = RunErrorCode> extends Error {
  override readonly name: string = 'GuardRunError';
  readonly code: Code;
  readonly hint: string | undefined;
  readonly details: RunErrorDetails;

  constructor(code: Code, message: string, details: RunErrorDetails = {}, hint?: string) {
    super(message);
    this.code = code;
    this.details = details;
    this.hint = hint;
    // The transaction this error ended is aborted, so nothing can be verified in it: the verification of every
    // connection is done again on its next run (verification.ts).
    if (code === 'sql_execution_failed' && mayComeFromSchemaChange(details)) schemaChangesSeen++;
  }

  toJSON(): { code: Code; message: string; hint?: string; details: RunErrorDetails } {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint === undefined ? {} : { hint: this.hint }),
      details: this.details,
    };
  }
}

/** `check` refused the text; nothing was sent to the database. Thrown by `run` too: a GuardRunError. */
export class GuardCheckError extends GuardRunError<GuardErrorCode> {
  override readonly name: string = 'GuardCheckError';
  readonly violation: GuardViolation;

  constructor(violation: GuardViolation) {
    super(
      violation.code,
      violation.message,
      {
        ...(violation.position ? { position: violation.position } : {}),
        ...(violation.statementIndex !== undefined ? { statementIndex: violation.statementIndex } : {}),
      },
      violation.hint,
    );
    this.violation = violation;
  }
}

/** The SQLSTATE of an error PostgreSQL raised (a driver's `code`, five characters); undefined for any other error. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** How many errors that a schema change can cause this process has seen (verification.ts compares it). */
let schemaChangesSeen = 0;

export function schemaChangeCount(): number {
  return schemaChangesSeen;
}

/**
 * Whether PostgreSQL refused a row because of a row-level security policy (42501 from the executor's WITH CHECK
 * options: the row is outside what the policies allow), not for a privilege the role lacks (42501 too).
 */
export function isRowSecurityRefusal(details: Pick<RunErrorDetails, 'sqlstate' | 'routine'>): boolean {
  return details.sqlstate === '42501' && details.routine === 'ExecWithCheckOptions';
}

/**
 * Whether PostgreSQL's error may mean the schema changed under a connection verified before: a column or table that
 * is gone (42703, 42P01), a privilege that is (42501, but not a row-level security policy's refusal of a row), a
 * cached plan whose result type changed (0A000 from the plan cache's revalidation). Read from the SQLSTATE and the
 * raising routine, never the message, which the server may write in another language.
 */
export function mayComeFromSchemaChange(details: Pick<RunErrorDetails, 'sqlstate' | 'routine'>): boolean {
  switch (details.sqlstate) {
    case '42703':
    case '42P01':
      return true;
    case '42501':
      return !isRowSecurityRefusal(details);
    case '0A000':
      return details.routine === 'RevalidateCachedQuery';
    default:
      return false;
  }
}
