/**
 * Every refusal of the import core: a stable snake_case code, a message that says what happened, a hint that says
 * what to do next, and whether it is wrong usage (an option to give or change) or a file that cannot be imported.
 * The CLI turns it into its CliError (same code, exit 2 or 1); the console shows its message and hint.
 */

export const ExitCode = { failure: 1, usage: 2 } as const;
export type ImportExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The situation of a refusal whose next step names one of the CLI's options (an account, a column mapping, a
 * delimiter): the API's error catalogue has a variant of that name with every reader's words (the API, its MCP
 * tools, the console, the CLI), so the server answers the variant and its facts, never this refusal's CLI words.
 */
export interface ImportSituation {
  /** invalid_request's (the account, the columns, a layout nothing reads) or import_unreadable's (the CSV, its rows). */
  variant:
    | 'import_account'
    | 'import_one_account'
    | 'import_columns'
    | 'import_layout'
    | 'csv_syntax'
    | 'rows_refused';
  facts?: Readonly<Record<string, string | number>>;
}

export interface ImportErrorOptions {
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
  situation?: ImportSituation | undefined;
}

export class ImportError extends Error {
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly situation: ImportSituation | undefined;
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ImportExitCode,
    options: ImportErrorOptions = {},
  ) {
    super(message);
    this.name = 'ImportError';
    this.hint = options.hint;
    this.details = options.details;
    this.situation = options.situation;
  }
}

/** Wrong usage (exit 2): an option is missing, unknown, or does not fit the file. */
export function usageError(message: string, hint?: string, situation?: ImportSituation): ImportError {
  return new ImportError('usage_error', message, ExitCode.usage, {
    hint,
    ...(situation === undefined ? {} : { situation }),
  });
}

/** A file that cannot be imported as it is (exit 1), with the next step. */
export function refusal(
  code: string,
  message: string,
  hint: string,
  details?: Record<string, unknown>,
): ImportError {
  return new ImportError(code, message, ExitCode.failure, { hint, ...(details ? { details } : {}) });
}
