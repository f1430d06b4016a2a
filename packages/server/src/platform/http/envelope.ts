import type { Action, ErrorCode, FailureEnvelope, SuccessEnvelope } from '@expense/wire';
import type { ActionBuilder } from './actions.js';
import type { ApiError } from './api-error.js';
import { catalogEntry } from './error-catalog.js';

export function success<T>(data: T, instructions: string[] = [], actions: Action[] = []): SuccessEnvelope<T> {
  return { ok: true, data, instructions, actions };
}

export function failure(error: ApiError, actions: ActionBuilder): FailureEnvelope {
  const o = error.options;
  const entry = catalogEntry(error.code, o.variant);
  const body: FailureEnvelope = {
    ok: false,
    error: {
      code: error.code,
      message: error.message,
      hint: o.hint ?? entry.hint,
      retryable: o.retryable ?? entry.retryable,
    },
    instructions: o.instructions ?? [],
    actions: o.actions ?? entry.actions(actions),
  };
  if (o.details) body.error.details = o.details;
  return body;
}

export type { ErrorCode };
