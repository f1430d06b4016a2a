// The codes alone (the wire's index would load its schemas).
import { GUARD_ERROR_CODES } from '@expense/sql-guard/codes';
import { ExitCode } from '../errors.js';

const DATABASE_REJECTIONS = new Set<string>(['sql_execution_failed', 'mutation_row_limit_exceeded']);
const DIALECT_REJECTIONS = new Set<string>(GUARD_ERROR_CODES);

/** Whether an error code means the SQL itself was refused (by the dialect or by the database). */
export const isSqlRejection = (code: string) => DIALECT_REJECTIONS.has(code) || DATABASE_REJECTIONS.has(code);

/** The exit code of a server error (cli.md): 4 for a missing, unknown or revoked key, 5 for refused SQL, else 1. */
export function exitCodeForApiError(status: number, code: string): ExitCode {
  if (status === 401 || code === 'missing_api_key' || code === 'invalid_api_key') return ExitCode.notSignedIn;
  if (isSqlRejection(code)) return ExitCode.sqlRejected;
  return ExitCode.failure;
}
