/** The exit codes of `cli.md`. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  declined: 3,
  notSignedIn: 4,
  sqlRejected: 5,
  /** The server's row cap cut the result and stdout is not a terminal (`--all` fetches the rest). */
  truncated: 6,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface CliErrorOptions {
  hint?: string;
  details?: Record<string, unknown>;
}

/**
 * Every failure the CLI reports: a stable snake_case code, a message that says what happened, an optional
 * hint that says what to do, and the exit code.
 */
export class CliError extends Error {
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCode,
    options: CliErrorOptions = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.hint = options.hint;
    this.details = options.details;
  }
}

export const usageError = (message: string, hint?: string) =>
  new CliError('usage_error', message, ExitCode.usage, hint ? { hint } : {});

export const notSignedIn = (hint = 'Run `expense login`, or set EXPENSE_API_KEY.') =>
  new CliError('not_signed_in', 'You are not signed in.', ExitCode.notSignedIn, { hint });
