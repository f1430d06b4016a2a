import { type Command, Option } from 'commander';
import { RAW_HELP } from '../../output/csv.js';
import { type Action, lazy } from '../action.js';

export function registerQuery(program: Command, action: Action): void {
  program
    .command('query')
    .argument(
      '[sql]',
      'one SELECT (or WITH ... SELECT); read from -f or stdin when omitted; on a terminal, an interactive prompt',
    )
    .option('-f, --file <file>', 'read the SQL from a file (- for stdin)')
    .addOption(
      new Option('--format <format>', 'how to print the rows')
        .choices(['table', 'json', 'csv'])
        .default('table'),
    )
    .option('--all', 'fetch every row, page by page (the query needs an ORDER BY)')
    .option('-t, --no-header', 'rows only, without the column names (psql -t)')
    .option('--crlf', 'end CSV lines with CRLF (default LF)')
    .option('--raw', RAW_HELP)
    .option('-A, --unaligned', 'one line per row, fields joined by the separator (psql -A)')
    .option('-F, --field-separator <sep>', 'the separator for -A', '|')
    .option('-x, --expanded', 'one block per row, a line per column (psql -x)')
    .option('--numbers', 'JSON: numeric columns as JSON numbers where that is exact')
    .option('--no-pager', 'never page the output (a terminal pages through $PAGER, default less -FRX)')
    .description('Run a read-only query and print its rows')
    .action(action(lazy(async () => (await import('./run.js')).query)));
}
