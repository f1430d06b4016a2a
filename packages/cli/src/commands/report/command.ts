import type { ReportKind } from '@expense/wire/reports';
import { Argument, type Command, Option } from 'commander';
import { RAW_HELP } from '../../output/csv.js';
import { type Action, lazy } from '../action.js';
import { choices } from '../choices.js';
import { REPORTS } from './options.js';

/** The reports' descriptions for `report`'s help, from the wire (which builds its schemas): see loadReportHelp. */
let descriptions: Record<ReportKind, string> | undefined;

/**
 * Loads what `report`'s help shows. Help text is written synchronously, so run() calls this before parsing
 * when `report` is among the words (`expense report --help`, `expense help report`); other commands never
 * load the wire for it.
 */
export async function loadReportHelp(): Promise<void> {
  descriptions ??= (await import('@expense/wire/reports')).REPORT_DESCRIPTIONS;
}

export function registerReport(program: Command, action: Action): void {
  program
    .command('report')
    .addArgument(choices(new Argument('<report>', 'the report to run'), Object.keys(REPORTS)))
    .option(
      '--month <YYYY-MM>',
      'the month to report on (default: this month; trend: the 12 months ending with it)',
    )
    .option('--from <YYYY-MM>', 'the first month of a range')
    .option('--to <YYYY-MM>', 'the last month of a range')
    .option(
      '--currency <code>',
      "convert amounts into this currency with each day's rate (default: the workspace's reporting currency)",
    )
    .addOption(
      new Option('--format <format>', 'table, csv (one row per point: chart-friendly) or json')
        .choices(['table', 'json', 'csv'])
        .default('table'),
    )
    .option('--raw', RAW_HELP)
    .option('-t, --no-header', 'rows only, without the column names')
    .option('--no-pager', 'never page the output')
    .description(
      'Run one of the fixed reports (GET /reports, the same data as the MCP report tool) and print its rows',
    )
    .addHelpText('after', () =>
      descriptions
        ? `
Reports:
${Object.entries(REPORTS)
  .map(([name, kind]) => `  ${name.padEnd(9)} ${descriptions?.[kind]}`)
  .join('\n')}`
        : '',
    )
    .action(action(lazy(async () => (await import('./run.js')).report)));
}
