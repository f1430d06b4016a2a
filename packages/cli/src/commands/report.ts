import { isIsoCurrency } from '@expense/wire';
import { REPORT_DESCRIPTIONS, type ReportKind } from '@expense/wire/reports';
import { type Command, Option } from 'commander';
import { usageError } from '../errors.js';
import { writePaged } from '../output/pager.js';
import { type RowFormat, renderRows } from '../output/sql-result.js';
import type { Action } from './action.js';

/** The CLI's names for the fixed reports the MCP `report` tool and the console run (packages/wire). */
export const REPORTS = {
  spending: 'spend_by_category',
  budget: 'budget_vs_actual',
  balances: 'balances',
  trend: 'monthly_trend',
} as const satisfies Record<string, ReportKind>;
export type ReportName = keyof typeof REPORTS;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function lastDay(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

function monthsBefore(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 - n, 1)).toISOString().slice(0, 7);
}

/**
 * The date range of a report: --from/--to months, else --month (default the current month, UTC). The trend
 * with only --month covers the twelve months ending with it (one month is not a trend).
 */
export function reportRange(
  name: ReportName,
  options: { month?: string; from?: string; to?: string },
  now = new Date(),
): { from: string; to: string } {
  for (const [flag, value] of [
    ['--month', options.month],
    ['--from', options.from],
    ['--to', options.to],
  ] as const) {
    if (value !== undefined && !MONTH.test(value))
      throw usageError(`${flag} takes a month written YYYY-MM (2026-11), not "${value}".`);
  }
  if (options.month && (options.from || options.to))
    throw usageError('Give --month, or --from and --to, not both.');
  const month = options.month ?? now.toISOString().slice(0, 7);
  const to = options.to ?? options.from ?? month;
  const from = options.from ?? (options.to ? options.to : name === 'trend' ? monthsBefore(month, 11) : month);
  if (from > to) throw usageError(`--from ${from} is after --to ${to}.`);
  return { from: `${from}-01`, to: lastDay(to) };
}

interface ReportOptions {
  month?: string;
  from?: string;
  to?: string;
  currency?: string;
  format: RowFormat;
  header: boolean;
  pager: boolean;
}

export function registerReport(program: Command, action: Action): void {
  program
    .command('report')
    .argument('<report>', `one of ${Object.keys(REPORTS).join(', ')}`)
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
    .option('-t, --no-header', 'rows only, without the column names')
    .option('--no-pager', 'never page the output')
    .description(
      'Run one of the fixed reports (GET /reports, the same data as the MCP report tool) and print its rows',
    )
    .addHelpText(
      'after',
      `
Reports:
${Object.entries(REPORTS)
  .map(([name, kind]) => `  ${name.padEnd(9)} ${REPORT_DESCRIPTIONS[kind]}`)
  .join('\n')}`,
    )
    .action(
      action(async (ctx, options: ReportOptions, [name]) => {
        const report = name!.toLowerCase();
        if (!(report in REPORTS))
          throw usageError(`There is no report "${name}".`, `Reports: ${Object.keys(REPORTS).join(', ')}.`);
        const kind = REPORTS[report as ReportName];
        const range = reportRange(report as ReportName, options);
        const currency = options.currency?.trim().toUpperCase();
        if (currency !== undefined && !isIsoCurrency(currency))
          throw usageError(`--currency takes an ISO 4217 code (EUR, USD, JPY), not "${options.currency}".`);
        const api = await ctx.api();
        const { data } = await api.report({ kind, ...range, ...(currency ? { currency } : {}) });
        if (ctx.json) {
          ctx.printJson({ report, ...data });
          return;
        }
        const columns = Object.keys(data.rows[0] ?? {}).map((name) => ({ name, type: 'text' }));
        const statement = {
          index: 0,
          command: 'SELECT' as const,
          columns,
          rows: data.rows,
          rowCount: data.rows.length,
          returnedRowCount: data.rows.length,
          totalRowCount: data.rows.length,
          truncated: false,
        };
        const text = renderRows(statement, options.format, {
          maxWidth: ctx.tableWidth,
          colours: ctx.out,
          header: options.header,
          crlf: false,
          expanded: false,
          numbers: false,
        });
        await writePaged(ctx.io, text, options.pager && options.format === 'table');
        if (options.format === 'table' && ctx.io.stderr.isTTY)
          ctx.note(ctx.err.dim(`(${report}, ${range.from} to ${range.to}, in ${data.currency})`));
        for (const note of data.notes) ctx.note(ctx.err.yellow(note));
      }),
    );
}
