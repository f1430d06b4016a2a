import { minorUnits, roundDecimal } from '@expense/wire';
import {
  type ReportData,
  type ReportFx,
  type ReportInput,
  type ReportKind,
  STALE_RATE_DAYS,
} from '@expense/wire/reports';
import { addDays } from './days.js';

// The one shaping of the reports' rows: amounts rounded to the currency's minor units here, never in SQL results.

/** The money columns of each report, rounded to the currency's minor units. */
const MONEY: Record<ReportKind, readonly string[]> = {
  spend_by_category: ['spent'],
  budget_vs_actual: ['planned_value', 'actual'],
  balances: ['balance', 'change'],
  monthly_trend: ['income', 'spent', 'net'],
};
const COUNTS = ['entries'];
/** Money columns in each row's own currency (`native_currency`), rounded to that currency's minor units. */
const NATIVE_MONEY: Partial<Record<ReportKind, readonly string[]>> = {
  balances: ['native_balance', 'native_change'],
};

/** What the three statements of reportScript (sql.ts) answered (rows as the SQL API returns them). */
export type ReportStatements = readonly { rows: Record<string, unknown>[] }[];

/**
 * The answer of a report from its statements' rows; `today` is the workspace's date (data.clock.today). Rates are
 * stale when the newest one used is more than STALE_RATE_DAYS older than the newest local day it converted (at
 * most today): fx_rates_daily carries the last market rate forward to every later day, so that gap is how old the
 * rates were where they were used. A past month whose foreign entries all lie early in it is not stale for that;
 * days without any rate are counted in `unconverted`.
 */
export function reportData(input: ReportInput, statements: ReportStatements, today: string): ReportData {
  const { kind, from, to } = input;
  const currency = String(statements[0]?.rows[0]?.currency ?? input.currency ?? 'USD');
  const digits = minorUnits(currency);
  const rows = (statements[1]?.rows ?? []).map((row) => {
    const out: Record<string, unknown> = { ...row };
    for (const c of MONEY[kind])
      if (typeof out[c] === 'string') out[c] = roundDecimal(out[c] as string, digits);
    for (const c of COUNTS) if (typeof out[c] === 'string') out[c] = Number(out[c]);
    const native = typeof out.native_currency === 'string' ? minorUnits(out.native_currency) : digits;
    for (const c of NATIVE_MONEY[kind] ?? [])
      if (typeof out[c] === 'string') out[c] = roundDecimal(out[c] as string, native);
    return out;
  });
  const fxRows = statements[2]?.rows ?? [];
  const missing = fxRows.filter((r) => Number(r.unconverted) > 0);
  const newest = (column: string) =>
    fxRows
      .map((r) => r[column])
      .filter((d): d is string => typeof d === 'string')
      .sort() // ISO dates sort as they fall
      .at(-1) ?? null;
  const newestRateDate = newest('newest_rate_date');
  const converted = newest('newest_converted_day');
  const reference = converted !== null && converted > today ? today : converted;
  const stale =
    newestRateDate !== null && reference !== null && newestRateDate < addDays(reference, -STALE_RATE_DAYS);
  const fx: ReportFx = {
    newestRateDate,
    stale,
    unconverted: {
      count: missing.reduce((n, r) => n + Number(r.unconverted), 0),
      currencies: missing.map((r) => String(r.currency)),
    },
  };
  const notes: string[] = [];
  if (stale) {
    notes.push(
      `Exchange rates are stale: the newest rate used is from ${newestRateDate}, more than ${STALE_RATE_DAYS} days before ${reference}, the last day it converted: the converted amounts may be off.`,
    );
  }
  if (fx.unconverted.count > 0) {
    notes.push(
      `${fx.unconverted.count} item(s) in ${fx.unconverted.currencies.join(', ')} had no exchange rate into ${currency} for their day and are left out of the sums.`,
    );
  }
  if (kind === 'budget_vs_actual' && rows.length === 0) {
    notes.push(`There are no budget lines in this range (${from} to ${to}).`);
  }
  return { kind, from, to, currency, rows, fx, notes };
}
