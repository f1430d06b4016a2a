// The catalogue alone (no zod): the console's import bundle includes this module, under a CSP without eval.
import { CLI_ERRORS, CLI_EXIT_CODES, type CliErrorCode, type ErrorCode } from '@expense/wire/error-catalog';

/** The exit codes of `cli.md` (the error catalogue's `CLI_EXIT_CODES`). */
export const ExitCode = CLI_EXIT_CODES;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code a code's catalogue entry fixes (`CLI_ERRORS`). */
type CatalogueExit<C extends CliErrorCode> = (typeof ExitCode)[(typeof CLI_ERRORS)[C]['exit']];

/**
 * The exit code a CliError of code C may carry: a code of the CLI's own (`CLI_ERRORS`) takes the one its entry
 * fixes; an API code, or a code only known at run time (an API error's), any exit code; any other literal code
 * none, so every code the CLI raises itself is a catalogue entry.
 */
export type ExitCodeOf<C extends string> = string extends C
  ? ExitCode
  : C extends CliErrorCode
    ? CatalogueExit<C>
    : C extends ErrorCode
      ? ExitCode
      : never;

export interface CliErrorOptions {
  hint?: string;
  details?: Record<string, unknown>;
}

/**
 * Every failure the CLI reports: a stable snake_case code, a message that says what happened, an optional
 * hint that says what to do, and the exit code.
 */
export class CliError<C extends string = string> extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  constructor(
    readonly code: C,
    message: string,
    exitCode: ExitCodeOf<C>,
    options: CliErrorOptions = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** A CliError of one of the CLI's own codes, with its catalogue entry's exit code, message and hint as defaults. */
export function cliError<C extends CliErrorCode>(
  code: C,
  options: CliErrorOptions & { message?: string } = {},
): CliError<C> {
  const entry: { exit: keyof typeof ExitCode; message?: string; hint?: string } = CLI_ERRORS[code];
  const hint = options.hint ?? entry.hint;
  return new CliError(code, options.message ?? entry.message ?? code, ExitCode[entry.exit] as ExitCodeOf<C>, {
    ...(hint === undefined ? {} : { hint }),
    ...(options.details ? { details: options.details } : {}),
  });
}

export const usageError = (message: string, hint?: string) =>
  cliError('usage_error', { message, ...(hint ? { hint } : {}) });

export const notSignedIn = (hint: string = CLI_ERRORS.not_signed_in.hint) =>
  cliError('not_signed_in', { hint });
