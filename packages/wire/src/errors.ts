import { GUARD_ERROR_CODES, type GuardErrorCode } from '@expense/sql-guard/codes';
import { z } from 'zod';

/** The error codes of `guard.md` (SQL that the guard rejects before it reaches the database), from the guard. */
export { GUARD_ERROR_CODES, type GuardErrorCode } from '@expense/sql-guard/codes';

/** The error codes of `http-api.md`, grouped by their HTTP status. */
export const HTTP_ERROR_STATUS = {
  invalid_request: 400,
  invalid_email: 400,
  invalid_label: 400,
  invalid_code: 400,
  expired_code: 400,
  invalid_otp_session: 400,
  invalid_workspace_name: 400,
  missing_workspace: 400,
  mutation_row_limit_exceeded: 400,
  result_too_large: 400,
  sql_execution_failed: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  forbidden: 403,
  not_found: 404,
  workspace_not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  last_owner: 409,
  change_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_concurrent_requests: 429,
  internal_error: 500,
  mutation_outcome_unknown: 500,
  database_unavailable: 503,
  deadline_exceeded: 504,
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERROR_STATUS;
export type ErrorCode = HttpErrorCode | GuardErrorCode;

/** Every error code a response can carry. */
export const ERROR_CODES = [
  ...(Object.keys(HTTP_ERROR_STATUS) as HttpErrorCode[]),
  ...GUARD_ERROR_CODES,
] as readonly ErrorCode[];

export const ErrorCodeSchema = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);

/** The HTTP status of a code; guard codes are client errors (400). */
export function statusOf(code: ErrorCode): number {
  return code in HTTP_ERROR_STATUS ? HTTP_ERROR_STATUS[code as HttpErrorCode] : 400;
}
