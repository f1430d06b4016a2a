import { Command, CommanderError, Option } from 'commander';
import { createAction, type RunState } from './commands/action.js';
import { registerApi } from './commands/api/command.js';
import { registerCategories } from './commands/categories/command.js';
import { registerCompletion } from './commands/completion/command.js';
import { registerConfig, registerProfiles } from './commands/config/command.js';
import { registerExec } from './commands/exec/command.js';
import { registerHistory } from './commands/history/command.js';
import { registerImport } from './commands/import/command.js';
import { registerInvitations } from './commands/invitations/command.js';
import { registerKeys } from './commands/keys/command.js';
import { registerLogin } from './commands/login/command.js';
import { registerLogout } from './commands/logout/command.js';
import { registerMcp } from './commands/mcp/command.js';
import { registerMembers } from './commands/members/command.js';
import { registerPortability } from './commands/portability/command.js';
import { registerQuery } from './commands/query/command.js';
import { loadReportHelp, registerReport } from './commands/report/command.js';
import { registerRevert } from './commands/revert/command.js';
import { registerSchema } from './commands/schema/command.js';
import { registerWhoami } from './commands/whoami/command.js';
import { registerWorkspaces } from './commands/workspaces/command.js';
import type { IO } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { colourEnabled, createColours } from './output/colour.js';
import { VERSION } from './version.js';

const HELP_FOOTER = `
Environment:
  EXPENSE_API_URL     the API's base URL (like --api-url)
  EXPENSE_PROFILE     the profile (like --profile)
  EXPENSE_WORKSPACE   the workspace for this call (like --workspace)
  EXPENSE_API_KEY     use this key; nothing is read from or written to the keychain
  EXPENSE_NO_INPUT=1  never prompt (like --no-input)
  NO_COLOR            no colour

Exit codes:
  0 success   1 failure   2 wrong usage   3 approval declined or cancelled
  4 not signed in, or the key was revoked   5 SQL rejected by the dialect or the database
  6 rows were cut by the server's row cap and stdout is not a terminal (use --all, or LIMIT/OFFSET)

Configuration lives in $XDG_CONFIG_HOME/expense/config.json (default ~/.config/expense).`;

/** The `expense` command tree (cli.md). */
export function createProgram(io: IO, state: RunState): Command {
  const program = new Command('expense')
    .description('Sign in, query and change your expenses in SQL, and import CSV files.')
    .version(VERSION, '-v, --version')
    .addOption(new Option('--api-url <url>', "the service's base URL").env('EXPENSE_API_URL'))
    .addOption(new Option('--profile <name>', 'named set of URL, key and workspace').env('EXPENSE_PROFILE'))
    .addOption(
      new Option('--workspace <id>', 'workspace for this call (sent as X-Workspace-Id)').env(
        'EXPENSE_WORKSPACE',
      ),
    )
    .option('--json', 'machine-readable output: the server\'s data, or {"error": {...}}')
    .option('--no-input', 'never prompt; fail with a clear message where input is needed')
    .showSuggestionAfterError(true)
    .addHelpText('after', HELP_FOOTER)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // run() reports commander's usage errors in the CLI's own shape (and as JSON with --json).
      outputError: () => {},
    });
  const action = createAction(io, state);
  registerLogin(program, action);
  registerLogout(program, action);
  registerWhoami(program, action);
  registerPortability(program, registerWorkspaces(program, action), action);
  registerSchema(program, action);
  registerQuery(program, action);
  registerExec(program, action);
  registerHistory(program, action);
  registerRevert(program, action);
  registerImport(program, action);
  registerReport(program, action);
  registerCategories(program, action);
  registerKeys(program, action);
  registerMembers(program, action);
  registerInvitations(program, action);
  registerMcp(program, action);
  registerApi(program, action);
  registerConfig(program, action);
  registerProfiles(program, action);
  registerCompletion(program, action);
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

/** Runs the CLI with `args` (without node and the script) and returns the exit code. */
export async function run(args: string[], io: IO): Promise<number> {
  const state: RunState = { exitCode: ExitCode.ok };
  const program = createProgram(io, state);
  if (args.length === 0) {
    io.stdout.write(program.helpInformation());
    return ExitCode.ok;
  }
  if (args.includes('report')) await loadReportHelp();
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      const benign = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code);
      if (benign) return ExitCode.ok;
      await reportUsage(io, program, args, error);
      return ExitCode.usage;
    }
    throw error;
  }
  return state.exitCode;
}

/** The command words of `args` that name a command (`members invite` in `members invite a@b.c --json`). */
function commandWords(program: Command, args: string[]): string[] {
  const words: string[] = [];
  let command = program;
  for (const arg of args) {
    if (arg.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) break;
    words.push(sub.name());
    command = sub;
  }
  return words;
}

/** Wrong usage commander found (an unknown option, a value not among the choices ...), as any CLI error. */
async function reportUsage(io: IO, program: Command, args: string[], error: CommanderError): Promise<void> {
  const command = ['expense', ...commandWords(program, args)].join(' ');
  // commander's suggestion ("(Did you mean query?)") is on a line of its own: it belongs in the hint.
  const [message = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
  const suggestion = rest.join(' ').replace(/^\((.*)\)$/, '$1');
  const usage = new CliError('usage_error', message, ExitCode.usage, {
    hint: `${suggestion ? `${suggestion} ` : ''}See \`${command} --help\`.`,
  });
  const { errorView, renderError } = await import('./output/render-error.js');
  if (args.includes('--json')) io.stdout.write(`${JSON.stringify({ error: errorView(usage) }, null, 2)}\n`);
  else io.stderr.write(renderError(usage, createColours(colourEnabled(io.stderr, io.env))));
}
