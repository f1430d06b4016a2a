import type { DialectDifference, GuardViolation, Position, RunErrorCode } from '../types.js';

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

/** A runtime refusal or failure of `run`. The caller must roll its transaction back. */
export class GuardRunError extends Error {
  override readonly name = 'GuardRunError';
  readonly code: RunErrorCode;
  readonly hint: string | undefined;
  readonly details: RunErrorDetails;

  constructor(code: RunErrorCode, message: string, details: RunErrorDetails = {}, hint?: string) {
    super(message);
    this.code = code;
    this.details = details;
    this.hint = hint;
  }

  toJSON(): { code: RunErrorCode; message: string; hint?: string; details: RunErrorDetails } {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint === undefined ? {} : { hint: this.hint }),
      details: this.details,
    };
  }
}

/** `check` refused the text; nothing was sent to the database. */
export class GuardCheckError extends Error {
  override readonly name = 'GuardCheckError';
  readonly violation: GuardViolation;

  constructor(violation: GuardViolation) {
    super(violation.message);
    this.violation = violation;
  }

  get code(): GuardViolation['code'] {
    return this.violation.code;
  }
}
