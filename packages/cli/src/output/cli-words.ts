import { hintFor, render } from '@expense/wire';
import { CliError } from '../errors.js';
import { ApiError } from '../http/api-error.js';

/**
 * The hint of a failure on the command line. The server's hints are written for agents reading the HTTP answer;
 * the CLI shows the error catalogue's CLI text of the same situation (its code, and the variant and facts the
 * answer carries in `details`). The CLI's own errors carry CLI words already. Only the human rendering uses it:
 * --json keeps the server's words.
 */
export function cliHint(error: unknown): string | undefined {
  const api = error instanceof ApiError ? error : error instanceof Error ? error.cause : undefined;
  if (api instanceof ApiError) return hintFor(api.error, 'cli'); // a server error, or one wrapping it (SqlRejected)
  return error instanceof CliError ? error.hint : undefined;
}

/**
 * The message of a failure on the command line: for a server error, the catalogue's CLI message of its situation
 * where its message names something of another audience (a SQL refusal names the route it was sent to), else the
 * message as answered; the CLI's own errors as they are. --json keeps the server's words.
 */
export function cliMessage(error: unknown): string | undefined {
  const api = error instanceof ApiError ? error : error instanceof Error ? error.cause : undefined;
  if (api instanceof ApiError) return render(api.error, 'cli').message;
  return undefined;
}
