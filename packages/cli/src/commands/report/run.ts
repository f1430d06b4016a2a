import { HTTP_ERRORS, isIsoCurrency } from '@expense/wire';
import { checkReportRange, ReportInputError } from '@expense/wire/reports';
import type { ExpenseApi } from '../../api/index.js';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { writePaged } from '../../output/pager.js';
import { renderRows } from '../../output/sql-result.js';
import { REPORTS, type ReportName, type ReportOptions } from './options.js';
import { reportRowsForPeople, withHeaderWords } from './table.js';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The UTC date of year, month (0-based, may overflow) and day; Date.UTC would read years 0 to 99 as 1900s. */
function utcDate(year: number, month: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  return date;
}

function lastDay(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return utcDate(y, m, 0).toISOString().slice(0, 10);
}

function monthsBefore(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return utcDate(y, m - 1 - n, 1)
    .toISOString()
    .slice(0, 7);
}

type RangeFlags = { month?: string; from?: string; to?: string };

/** Refuses malformed or conflicting month flags (before anything is sent). */
function checkRangeFlags(options: RangeFlags): void {
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
}

/**
 * The date range of a report: --from/--to months, else --month, else the month of `today`: the workspace's
 * date (data.clock.today, in its time zone), so that at 00:30 on 1 December in Berlin it is December. The trend
 * with only --month covers the twelve months ending with it (one month is not a trend).
 */
export function reportRange(
  name: ReportName,
  options: RangeFlags,
  today: string,
): { from: string; to: string } {
  checkRangeFlags(options);
  const month = options.month ?? today.slice(0, 7);
  const to = options.to ?? options.from ?? month;
  const from = options.from ?? (options.to ? options.to : name === 'trend' ? monthsBefore(month, 11) : month);
  if (from > to) throw usageError(`--from ${from} is after --to ${to}.`);
  const range = { from: `${from}-01`, to: lastDay(to) };
  try {
    checkReportRange(range.from, range.to);
  } catch (error) {
    if (error instanceof ReportInputError)
      throw usageError(error.message, HTTP_ERRORS.invalid_request.variants.report_range.cliHint);
    throw error;
  }
  return range;
}

/** Today in the workspace's time zone: data.clock of a trivial read (SQL results carry the clock). */
async function workspaceToday(api: ExpenseApi): Promise<string> {
  const { data } = await api.query('SELECT 1 AS one');
  return data.clock.today;
}

/** `expense report`: one of the fixed reports, printed. */
export async function report(ctx: Context, options: ReportOptions, [name]: string[]): Promise<void> {
  const report = name as ReportName; // one of REPORTS: commander checked it
  const kind = REPORTS[report];
  checkRangeFlags(options);
  const currency = options.currency?.trim().toUpperCase();
  if (currency !== undefined && !isIsoCurrency(currency))
    throw usageError(`--currency takes an ISO 4217 code (EUR, USD, JPY), not "${options.currency}".`);
  const api = await ctx.api();
  // Without a month the report covers the workspace's current month: its today, not the machine's UTC date.
  const dated = options.month !== undefined || options.from !== undefined || options.to !== undefined;
  const range = reportRange(report, options, dated ? '' : await workspaceToday(api));
  const { data } = await api.report({ kind, ...range, ...(currency ? { currency } : {}) });
  if (ctx.json) {
    ctx.printJson({ report, ...data });
    return;
  }
  // A person's table: headers in words, what remains of each budget, no empty months around the data.
  const rows = options.format === 'table' ? withHeaderWords(reportRowsForPeople(kind, data.rows)) : data.rows;
  if (rows.length === 0 && options.format === 'table') {
    ctx.note(`No entries from ${range.from} to ${range.to}.`);
    for (const note of data.notes) ctx.note(ctx.err.yellow(note));
    return;
  }
  const columns = Object.keys(rows[0] ?? {}).map((name) => ({ name, type: 'text' }));
  const statement = {
    index: 0,
    command: 'SELECT' as const,
    columns,
    rows,
    rowCount: rows.length,
    returnedRowCount: rows.length,
    totalRowCount: rows.length,
    truncated: false,
  };
  const text = renderRows(statement, options.format, {
    maxWidth: ctx.tableWidth,
    colours: ctx.out,
    header: options.header,
    crlf: false,
    raw: options.raw === true,
    expanded: false,
    numbers: false,
  });
  await writePaged(ctx.io, text, options.pager && options.format === 'table');
  if (options.format === 'table' && ctx.io.stderr.isTTY)
    ctx.note(ctx.err.dim(`(${report}, ${range.from} to ${range.to}, in ${data.currency})`));
  for (const note of data.notes) ctx.note(ctx.err.yellow(note));
}
