import { type ReceivedError, render } from '@expense/wire';

/**
 * The console's words for API errors: the error catalogue's console texts of the error's situation (its code, the
 * variant and facts the answer carries in `details`), for a person rather than an agent. The sign-in pages show them, and the proxy
 * gives the console's pages their errors in them (docs/architecture.md, "Errors").
 */

/** A sign-in page's hint for an API error (its situation: code, variant, facts). */
export function signInHint(error: ReceivedError): string | undefined {
  return render(error, 'console').hint;
}

interface ErrorBody {
  code: string;
  message?: unknown;
  hint?: string;
  details?: Record<string, unknown>;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { code, hint, details } = value as Record<string, unknown>;
  return (
    typeof code === 'string' &&
    (hint === undefined || typeof hint === 'string') &&
    (details === undefined || (typeof details === 'object' && details !== null))
  );
}

/**
 * An API answer for the console's pages: an error envelope (`{ok: false, error}`) with its message and hint in the
 * console's words; any other payload unchanged (undefined).
 */
export function inConsoleWords(payload: Buffer): Buffer | undefined {
  let envelope: unknown;
  try {
    envelope = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  const error = (envelope as { error?: unknown } | null)?.error;
  if (!isErrorBody(error)) return undefined;
  const { message, hint } = render(
    { ...error, message: typeof error.message === 'string' ? error.message : undefined },
    'console',
  );
  const worded = {
    ...error,
    ...(typeof error.message === 'string' && message !== undefined ? { message } : {}),
    ...(hint === undefined ? {} : { hint }),
  };
  return Buffer.from(JSON.stringify({ ...(envelope as object), error: worded }));
}
