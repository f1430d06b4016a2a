import {
  type Action,
  type ErrorCode,
  type FailureEnvelope,
  render,
  type SuccessEnvelope,
} from '@expense/wire';
import type { ActionBuilder } from './actions.js';
import type { ApiError } from './api-error.js';
import { catalogEntry } from './error-catalog.js';

export function success<T>(data: T, instructions: string[] = [], actions: Action[] = []): SuccessEnvelope<T> {
  return { ok: true, data, instructions, actions };
}

/**
 * The failure envelope of an ApiError. Its situation travels in `details` (docs/api.md, "Errors"): `variant`, the
 * catalogue variant it arose in (OWN_HINT for a hint the throw site built), and `facts`, the values the variant's
 * texts interpolate, so that the CLI, the MCP tools and the console render their own words of it.
 */
export function failure(error: ApiError, actions: ActionBuilder): FailureEnvelope {
  const o = error.options;
  const entry = catalogEntry(error.code, o.variant);
  const { variant } = error.received();
  const body: FailureEnvelope = {
    ok: false,
    error: {
      code: error.code,
      message: error.message,
      hint: render(error.received(), 'http').hint ?? entry.hint,
      retryable: o.retryable ?? entry.retryable,
    },
    instructions: o.instructions ?? [],
    actions: o.actions ?? entry.actions(actions),
  };
  const details = {
    ...o.details,
    ...(variant === undefined ? {} : { variant }),
    ...(o.facts === undefined ? {} : { facts: o.facts }),
  };
  if (Object.keys(details).length > 0) body.error.details = details;
  return body;
}

export type { ErrorCode };
