/*
 * The one rule for a report's dates, for every client (GET /v1/reports, the MCP `report` tool, `expense report`),
 * checked before any SQL is built. Without zod, so that the CLI can check its flags before it loads the API.
 */

/** The longest range a report covers, in calendar months touched (a report's monthly buckets). */
export const MAX_REPORT_MONTHS = 36;
/**
 * The days a report may name: four-digit years, which PostgreSQL holds (it has no year 0). The SQL also names the
 * day after `to` and the month after it, which PostgreSQL holds too (year 10000).
 */
export const REPORT_FIRST_DAY = '0001-01-01';
export const REPORT_LAST_DAY = '9999-12-31';

/** A report's dates refused: the message says which rule, and the catalogue's `report_range` hint what to send. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function monthIndex(day: string): number {
  return Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
}

/** Whether `day` is a YYYY-MM-DD day of the calendar within REPORT_FIRST_DAY..REPORT_LAST_DAY. */
export function isReportDay(day: string): boolean {
  const m = DAY.exec(day);
  if (!m || day < REPORT_FIRST_DAY || day > REPORT_LAST_DAY) return false;
  const date = new Date(0);
  date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3]);
}

/**
 * Throws ReportInputError unless `from` and `to` are days a report takes: real days in range, `from` on or before
 * `to`, and at most MAX_REPORT_MONTHS calendar months touched.
 */
export function checkReportRange(from: string, to: string): void {
  for (const [name, day] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!isReportDay(day))
      throw new ReportInputError(
        `\`${name}\` (${day}) is not a day between ${REPORT_FIRST_DAY} and ${REPORT_LAST_DAY} written YYYY-MM-DD.`,
      );
  }
  if (from > to) throw new ReportInputError(`\`from\` (${from}) is after \`to\` (${to}).`);
  const months = monthIndex(to) - monthIndex(from) + 1;
  if (months > MAX_REPORT_MONTHS)
    throw new ReportInputError(
      `A report covers at most ${MAX_REPORT_MONTHS} months; ${from} to ${to} touches ${months}.`,
    );
}
