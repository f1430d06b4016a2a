import { type Action, type ErrorCode, type ErrorVariantOf, errorEntry, statusOf } from '@expense/wire';

export interface ApiErrorOptions<C extends ErrorCode = ErrorCode> {
  /** One of the code's situations in the error catalogue, with a hint (and retryability) of its own. */
  variant?: ErrorVariantOf<C>;
  /** Only a hint built from values the throw site alone knows; fixed hints belong in the catalogue. */
  hint?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  actions?: Action[];
  instructions?: string[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error with a stable code; the error handler turns it into the failure envelope. */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'ApiError';
  readonly code: C;
  readonly status: number;
  readonly options: ApiErrorOptions<C>;

  /** Without a message, the catalogue's message of the code. */
  constructor(code: C, message?: string, options: ApiErrorOptions<C> = {}) {
    super(
      message ?? errorEntry(code).message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.status = statusOf(code);
    this.options = options;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
