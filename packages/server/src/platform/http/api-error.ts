import {
  type Action,
  type ErrorCode,
  type ErrorVariantOf,
  type Facts,
  OWN_HINT,
  type ReceivedError,
  render,
  statusOf,
} from '@expense/wire';

export interface ApiErrorOptions<C extends ErrorCode = ErrorCode> {
  /** One of the code's situations in the error catalogue, with a hint (and retryability) of its own. */
  variant?: ErrorVariantOf<C>;
  /** The values the catalogue's texts of the situation interpolate (`{{name}}`), by name. */
  facts?: Facts;
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

  /** Without a message, the catalogue's message of the situation (the code, its variant, the facts). */
  constructor(code: C, message?: string, options: ApiErrorOptions<C> = {}) {
    super(
      message ?? render({ code, variant: options.variant, facts: options.facts }, 'http').message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.status = statusOf(code);
    this.options = options;
  }

  /** The error as an audience receives it: its situation (OWN_HINT for a hint of the throw site's) and texts. */
  received(): ReceivedError {
    const o = this.options;
    const variant = o.hint !== undefined ? OWN_HINT : o.variant;
    return {
      code: this.code,
      message: this.message,
      ...(o.hint === undefined ? {} : { hint: o.hint }),
      ...(variant === undefined ? {} : { variant }),
      ...(o.facts === undefined ? {} : { facts: o.facts }),
    };
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
