import { GUARD_ERROR_CODES, type GuardErrorCode } from '@expense/sql-guard/codes';
import { GUARD_ERROR, GUARD_ERRORS } from './guard.js';
import { HTTP_ERRORS } from './http.js';
import type { ErrorEntry } from './types.js';

export type HttpErrorCode = keyof typeof HTTP_ERRORS;
export type ErrorCode = HttpErrorCode | GuardErrorCode;

/** The names of a code's variants (none for most codes). */
export type ErrorVariantOf<C extends ErrorCode> = C extends HttpErrorCode
  ? (typeof HTTP_ERRORS)[C] extends { variants: infer V }
    ? keyof V & string
    : never
  : C extends keyof typeof GUARD_ERRORS
    ? (typeof GUARD_ERRORS)[C] extends { variants: infer V }
      ? keyof V & string
      : never
    : never;

const GUARD_CODES: ReadonlySet<string> = new Set(GUARD_ERROR_CODES);

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(HTTP_ERRORS, code) || GUARD_CODES.has(code);
}

/** The catalogue entry of a code. */
export function errorEntry(code: ErrorCode): ErrorEntry {
  if (Object.hasOwn(HTTP_ERRORS, code)) return HTTP_ERRORS[code as HttpErrorCode];
  return Object.hasOwn(GUARD_ERRORS, code) ? GUARD_ERRORS[code as keyof typeof GUARD_ERRORS] : GUARD_ERROR;
}

export type ResolvedError = Pick<
  ErrorEntry,
  'status' | 'hint' | 'retryable' | 'actions' | 'mcpNext' | 'mcpHint'
>;

/** A code's entry in one of its variants (the entry's own values where the variant names none). */
export function resolveError(code: ErrorCode, variant?: string): ResolvedError {
  const entry = errorEntry(code);
  const v = variant === undefined ? undefined : entry.variants?.[variant];
  const mcpNext = v?.mcpNext ?? entry.mcpNext;
  const mcpHint = v?.mcpHint ?? entry.mcpHint;
  return {
    status: entry.status,
    hint: v?.hint ?? entry.hint,
    retryable: v?.retryable ?? entry.retryable,
    actions: v?.actions ?? entry.actions,
    ...(mcpNext === undefined ? {} : { mcpNext }),
    ...(mcpHint === undefined ? {} : { mcpHint }),
  };
}

/** The HTTP status of a code; guard codes are client errors (400). */
export function statusOf(code: ErrorCode): number {
  return errorEntry(code).status;
}
