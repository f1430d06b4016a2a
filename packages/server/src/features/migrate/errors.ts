/**
 * Refusals and failures of `expense-server migrate-to`: a code, the facts of the case and the next step. They are
 * the command's own (it answers no HTTP request, so they are not in the API's error catalogue); the command prints
 * them as `error: <message> (<code>)` and `hint: <hint>` and exits 1.
 */
export type MigrateErrorCode =
  /** DATABASE_URL is set: there is no embedded database to move. */
  | 'migrate_not_embedded'
  /** The target is not a postgres:// URL. */
  | 'migrate_invalid_target'
  /** EXPENSE_DATA_DIR holds no embedded database. */
  | 'migrate_no_embedded_database'
  /** The folder's files could not be copied, or the copy not opened and migrated. */
  | 'migrate_source_unreadable'
  /** A server runs on the data folder. */
  | 'migrate_server_running'
  /** The target cannot be reached, or its migrations failed. */
  | 'migrate_target_unavailable'
  /** The target holds data already. */
  | 'migrate_target_not_empty'
  /** The connecting role does not own the target's tables. */
  | 'migrate_target_not_owner'
  /** Another session holds the target's tables. */
  | 'migrate_target_busy'
  /** The two schemas differ, or hold something the copy cannot copy. */
  | 'migrate_schema_mismatch'
  /** The copy failed; the target's transaction was rolled back. */
  | 'migrate_copy_failed'
  /** The counts or checksums differ after the copy; rolled back. */
  | 'migrate_verification_failed'
  /** The connection was lost while committing. */
  | 'migrate_outcome_unknown';

export class MigrateError extends Error {
  override readonly name = 'MigrateError';
  constructor(
    readonly code: MigrateErrorCode,
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A URL without its password, for output. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable URL)';
  }
}
