import { type Action, type ErrorCode, statusOf } from '@expense/wire';

export interface ApiErrorOptions {
  hint?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  actions?: Action[];
  instructions?: string[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error with a stable code; the error handler turns it into the failure envelope. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly options: ApiErrorOptions;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = statusOf(code);
    this.options = options;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
