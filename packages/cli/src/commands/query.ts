import { type Command, Option } from 'commander';
import { type RowFormat, renderRows, truncationNotice } from '../output/sql-result.js';
import type { Action } from './action.js';
import { callSql, sqlFrom } from './shared.js';

interface QueryOptions {
  file?: string;
  format: RowFormat;
}

export function registerQuery(program: Command, action: Action): void {
  program
    .command('query')
    .argument('[sql]', 'one SELECT (or WITH ... SELECT); read from -f or stdin when omitted')
    .option('-f, --file <file>', 'read the SQL from a file (- for stdin)')
    .addOption(
      new Option('--format <format>', 'how to print the rows')
        .choices(['table', 'json', 'csv'])
        .default('table'),
    )
    .description('Run a read-only query and print its rows')
    .action(
      action(async (ctx, options: QueryOptions, [arg]) => {
        const sql = await sqlFrom(ctx, arg, options.file);
        const result = await callSql(ctx, '/sql/query', sql);
        const statement = result.data.statements[0];
        if (ctx.json) ctx.printJson(result.raw);
        else if (statement) {
          ctx.io.stdout.write(
            renderRows(statement, options.format, { maxWidth: ctx.tableWidth, colours: ctx.out }),
          );
          if (options.format === 'table' && ctx.io.stderr.isTTY && !statement.truncated) {
            ctx.note(
              ctx.err.dim(
                `(${statement.returnedRowCount} row${statement.returnedRowCount === 1 ? '' : 's'})`,
              ),
            );
          }
        }
        const notice = statement && truncationNotice(statement, result.data.limits.maxReturnedRows);
        if (notice) ctx.note(ctx.err.yellow(notice));
      }),
    );
}
