/**
 * `@expense/sql-guard/codes`: the stable error codes, without the parser (nothing here loads libpg-query), for
 * clients that only need to name or recognise them.
 */
export {
  DIALECT_ERROR_CODES,
  type DialectErrorCode,
  GUARD_ERROR_CODES,
  type GuardErrorCode,
  RUN_ERROR_CODES,
  type RunErrorCode,
} from './types.js';
