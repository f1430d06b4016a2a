import { Argument, type Command } from 'commander';
import { type Action, lazy } from '../action.js';
import { choices } from '../choices.js';
import { METHODS } from './options.js';

export function registerApi(program: Command, action: Action): void {
  program
    .command('api')
    .addArgument(choices(new Argument('<method>', 'the HTTP method'), METHODS))
    .argument('<path>', 'a path under the API URL, e.g. /me or /workspaces')
    .option('-d, --data <json>', 'the JSON request body')
    .option('--input <file>', 'read the JSON body from a file (- for stdin)')
    .description(
      "Call the API directly with the stored key (and the workspace header); prints the response's data",
    )
    .addHelpText(
      'after',
      `
Examples:
  expense api GET /me
  expense api POST /sql/query -d '{"sql": "SELECT count(*) FROM ledger_entries"}'
  expense api DELETE /keys/<connectionId>

The response's data goes to stdout as JSON; an error is shown like any command's (--json: {"error": ...}).`,
    )
    .action(action(lazy(async () => (await import('./run.js')).api)));
}
