import { GUARD_ERROR_CODES } from '@expense/sql-guard/codes';
import { z } from 'zod';
import { type ErrorCode, HTTP_ERRORS, type HttpErrorCode } from './error-catalog.js';

/** The error codes of `guard.md` (SQL that the guard rejects before it reaches the database), from the guard. */
export { GUARD_ERROR_CODES, type GuardErrorCode } from '@expense/sql-guard/codes';
export {
  type Audience,
  type AudienceHints,
  type AudienceText,
  CLI_ERRORS,
  CLI_EXIT_CODES,
  type CliErrorCode,
  type CliErrorEntry,
  type CliExitName,
  cliExitCode,
  DIALECT_WORDS,
  type ErrorActionName,
  type ErrorCode,
  type ErrorEntry,
  type ErrorSituation,
  type ErrorVariant,
  type ErrorVariantOf,
  errorEntry,
  errorOf,
  type Facts,
  GUARD_ERROR,
  GUARD_ERRORS,
  HTTP_ERRORS,
  type HttpErrorCode,
  hintFor,
  isErrorCode,
  OWN_HINT,
  type ReceivedError,
  type RenderedError,
  type ResolvedError,
  render,
  resolveError,
  rulesFor,
  SCHEMA_RULE_WORDS,
  situationIn,
  statusOf,
  TRANSFER_RULE,
  withFacts,
} from './error-catalog.js';

/** Every error code a response can carry. */
export const ERROR_CODES = [
  ...(Object.keys(HTTP_ERRORS) as HttpErrorCode[]),
  ...GUARD_ERROR_CODES,
] as readonly ErrorCode[];

export const ErrorCodeSchema = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);
