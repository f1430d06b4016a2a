/** Typed storage failures with stable codes; the HTTP layer maps them to status codes. */

export type StorageErrorCode =
  | 'database_unavailable'
  | 'mutation_outcome_unknown'
  | 'invalid_context'
  | 'migration_failed'
  | 'migration_checksum_mismatch'
  | 'database_closed'
  | 'transaction_rolled_back'
  | 'workspace_not_resolved'
  | 'invalid_database_url'
  | 'unsupported_database_version'
  | 'start_deadline_passed'
  | 'preempted'
  | 'lock_timeout';

export class StorageError extends Error {
  override readonly name: string = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The base of a failure that has nothing to tell but that it happened: its name, code and message are fixed, and
 * it may carry the error that caused it.
 */
function fixedStorageError(name: string, code: StorageErrorCode, message: string) {
  return class extends StorageError {
    override readonly name: string = name;
    constructor(options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };
}

/** The database cannot be reached or the connection was lost before anything was committed (HTTP 503). */
export class DatabaseUnavailableError extends StorageError {
  override readonly name = 'DatabaseUnavailableError';
  readonly retryable = true;
  constructor(message = 'The database is unavailable.', options?: { cause?: unknown }) {
    super('database_unavailable', message, options);
  }
}

/** COMMIT of a writing transaction was sent but its outcome could not be confirmed (HTTP 500). */
export class MutationOutcomeUnknownError extends fixedStorageError(
  'MutationOutcomeUnknownError',
  'mutation_outcome_unknown',
  'The connection was lost while committing; the change may or may not have been applied.',
) {
  readonly retryable = false;
}

/** A user context that is not a pair of UUIDs; raised before anything reaches the database. */
export class InvalidContextError extends StorageError {
  override readonly name = 'InvalidContextError';
  constructor(field: 'userId' | 'workspaceId' | 'connectionId') {
    super('invalid_context', `${field} must be a UUID.`);
  }
}

/**
 * A user transaction's workspace lookup found nothing (not a member, no saved workspace): it stopped before any
 * user SQL ran and nothing was changed. The caller decides what to answer (not found, or a choice to make).
 */
export class WorkspaceNotResolvedError extends fixedStorageError(
  'WorkspaceNotResolvedError',
  'workspace_not_resolved',
  'No workspace of this user matched the lookup.',
) {}

export class MigrationError extends StorageError {
  override readonly name = 'MigrationError';
  constructor(
    code: 'migration_failed' | 'migration_checksum_mismatch',
    message: string,
    readonly version?: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

export class DatabaseClosedError extends fixedStorageError(
  'DatabaseClosedError',
  'database_closed',
  'The database has been closed.',
) {}

/** A user transaction waited for the embedded database past the time it had to start by; nothing ran. */
export class StartDeadlineError extends fixedStorageError(
  'StartDeadlineError',
  'start_deadline_passed',
  'The transaction could not start before its deadline; nothing ran.',
) {}

/**
 * The embedded engine stopped a transaction (a read or a write that had not begun to commit) that had run for its
 * fair share while another user waited, and rolled it back: nothing was changed.
 */
export class PreemptedError extends StorageError {
  override readonly name = 'PreemptedError';
  constructor(readonly afterMs: number) {
    super(
      'preempted',
      `The transaction was stopped after ${afterMs} ms and rolled back to let other users' requests run.`,
    );
  }
}

/**
 * One of the server's own statements waited for a lock past its lock_timeout (a user's slow write holds the
 * row): it was rolled back, nothing was changed, and it may be retried once that write has ended.
 */
export class LockTimeoutError extends fixedStorageError(
  'LockTimeoutError',
  'lock_timeout',
  'A row this needs is locked by a write still running; nothing was changed.',
) {
  readonly retryable = true;
}

/** SQLSTATE 55P03 lock_not_available: what lock_timeout raises. */
export const isLockNotAvailable = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '55P03';
