import type { Command } from 'commander';
import { Context, type GlobalOptions, type IO } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { errorView, renderError } from '../output/render-error.js';
import { SqlRejected } from './shared.js';

export type ActionFn<O> = (ctx: Context, options: O, args: string[]) => Promise<void>;
/** Wraps a command body: builds its Context, reports its error (text or --json), records the exit code. */
export type Action = <O>(fn: ActionFn<O>) => (...args: unknown[]) => Promise<void>;

export interface RunState {
  exitCode: number;
}

export function report(ctx: Context, error: unknown): number {
  if (ctx.json) ctx.printJson({ error: errorView(error) });
  else ctx.io.stderr.write(renderError(error, ctx.err, error instanceof SqlRejected ? error.sql : undefined));
  return error instanceof CliError ? error.exitCode : ExitCode.failure;
}

export function createAction(io: IO, state: RunState): Action {
  return (fn) =>
    async (...args) => {
      const command = args.at(-1) as Command;
      const options = args.at(-2);
      const positional = args.slice(0, -2).map((a) => a as string);
      const ctx = new Context(io, command.optsWithGlobals() as GlobalOptions);
      try {
        await fn(ctx, options as never, positional);
        state.exitCode = ctx.exitCode ?? ExitCode.ok;
      } catch (error) {
        state.exitCode = report(ctx, error);
      } finally {
        await ctx.close();
      }
    };
}
