import {
  ImportError,
  type ImportHooks,
  type ImportRequest,
  type PreparedImport,
  prepareImport as prepareWithCore,
} from '@expense/import';
import { CliError, ExitCode } from '../errors.js';

export type { ImportHooks, ImportRequest, PreparedImport };

/**
 * `expense import`'s reading of a file: @expense/import's `prepareImport` (the same core the console and the
 * server run), its refusals as the CLI's errors (same code, message, hint and details; exit 2 for wrong usage,
 * 1 for a file that cannot be imported).
 */
export async function prepareImport(request: ImportRequest, hooks: ImportHooks): Promise<PreparedImport> {
  try {
    return await prepareWithCore(request, hooks);
  } catch (error) {
    throw asCliError(error);
  }
}

/** An ImportError as the CLI's CliError; anything else as it is. */
export function asCliError(error: unknown): unknown {
  if (!(error instanceof ImportError)) return error;
  const exit = error.exitCode === ExitCode.usage ? ExitCode.usage : ExitCode.failure;
  return new CliError(error.code, error.message, exit, {
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    ...(error.details ? { details: error.details } : {}),
  });
}
