import { hintFor, inAudienceWords } from '@expense/wire';

/**
 * The console's words for API errors: the error catalogue's console texts (`consoleHint`, and its phrases for
 * texts built at a throw site), for a person rather than an agent. The sign-in pages show them, and the proxy
 * gives the console's pages their errors in them (docs/architecture.md, "Errors").
 */

/** A sign-in page's hint for an API error (code and HTTP hint). */
export function signInHint(code: string, hint: string | undefined): string | undefined {
  return hintFor({ code, hint }, 'console');
}

interface ErrorBody {
  code: string;
  message?: unknown;
  hint?: string;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { code, hint } = value as Record<string, unknown>;
  return typeof code === 'string' && (hint === undefined || typeof hint === 'string');
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
  const hint = hintFor(error, 'console');
  const worded = {
    ...error,
    ...(typeof error.message === 'string' ? { message: inAudienceWords(error.message, 'console') } : {}),
    ...(hint === undefined ? {} : { hint }),
  };
  return Buffer.from(JSON.stringify({ ...(envelope as object), error: worded }));
}
