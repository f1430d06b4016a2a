import type { Command } from 'commander';
import type { Context, GlobalOptions, IO } from '../context.js';
import { CliError, ExitCode } from '../errors.js';

export type ActionFn<O> = (ctx: Context, options: O, args: string[]) => Promise<void>;
/** Wraps a command body: builds its Context, reports its error (text or --json), records the exit code. */
export type Action = <O>(fn: ActionFn<O>) => (...args: unknown[]) => Promise<void>;

export interface RunState {
  exitCode: number;
}

export async function report(ctx: Context, error: unknown): Promise<number> {
  // Loaded on failure only: the renderer pulls in the wire's error codes.
  const [{ errorView, renderError }, { SqlRejected }] = await Promise.all([
    import('../output/render-error.js'),
    import('./shared.js'),
  ]);
  if (ctx.json) ctx.printJson({ error: errorView(error) });
  else ctx.io.stderr.write(renderError(error, ctx.err, error instanceof SqlRejected ? error.sql : undefined));
  return error instanceof CliError ? error.exitCode : ExitCode.failure;
}

/**
 * The Context (HTTP client, credentials, configuration) is loaded when a command runs, not when the command
 * tree is built: `expense --version` and `--help` load commander and the definitions only.
 */
export function createAction(io: IO, state: RunState): Action {
  return (fn) =>
    async (...args) => {
      const command = args.at(-1) as Command;
      const options = args.at(-2);
      const positional = args.slice(0, -2).map((a) => a as string);
      const { Context } = await import('../context.js');
      const ctx = new Context(io, command.optsWithGlobals() as GlobalOptions);
      try {
        await fn(ctx, options as never, positional);
        state.exitCode = ctx.exitCode ?? ExitCode.ok;
      } catch (error) {
        state.exitCode = await report(ctx, error);
      } finally {
        await ctx.close();
      }
    };
}

/** An action body kept in its own module, imported only when the command runs. */
export function lazy<O>(load: () => Promise<ActionFn<O>>): ActionFn<O> {
  return async (ctx, options, args) => (await load())(ctx, options, args);
}
