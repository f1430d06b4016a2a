import type { Action } from '@expense/wire';
import { CliError } from '../errors.js';
import { exitCodeForApiError } from './exit-codes.js';

export interface ServerError {
  code: string;
  message: string;
  hint?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

/** An error envelope from the server, with the exit code it maps to. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly error: ServerError,
    readonly actions: Action[],
    readonly requestId: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(error.code, error.message, exitCodeForApiError(status, error.code), {
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.details ? { details: error.details } : {}),
    });
    this.name = 'ApiError';
  }
}
