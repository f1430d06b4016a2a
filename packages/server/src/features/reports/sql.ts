import {
  checkedReportInput,
  MAX_REPORT_MONTHS,
  type ReportInput,
  type ReportKind,
} from '@expense/wire/reports';
import { addDays, monthStart, nextMonth } from './days.js';

/*
 * The reports' SQL: fixed, reviewed statements in the service's dialect, run through the same guard, row-level
 * security and limits as any agent's query (routes.ts). Inputs are checked first (checkedReportInput, the contract's
 * schema and range) and inlined as literals only after that (dates, a currency code): nothing free-form ever
 * reaches the text.
 *
 * Money comes out in one currency: the one asked for, else the workspace's reporting_currency. An entry in another
 * currency converts with fx_rates_daily on its local date (SQL runs in the workspace's time zone, so ts::date is
 * the local day and the TIMESTAMPTZ bounds below are local midnights); one with no rate is left out of the sums
 * and counted in `fx.unconverted` with its currency named (data.ts). Income and spending leave transfers out; a
 * refund (a positive spend row) lowers its category's spending.
 */

const dateLit = (d: string) => `DATE '${d}'`;
/** Local midnight of a day: SQL runs in the workspace's time zone, so a TIMESTAMPTZ without offset is local. */
const midnight = (d: string) => `TIMESTAMPTZ '${d} 00:00:00'`;

/** The months touching [from, to] as [first day, first day of the next month]; the range is checked before. */
export function monthBuckets(from: string, to: string): [string, string][] {
  const out: [string, string][] = [];
  const last = monthStart(to);
  for (let m = monthStart(from); out.length < MAX_REPORT_MONTHS; ) {
    const next = nextMonth(m);
    out.push([m, next]);
    if (m === last) break;
    m = next;
  }
  return out;
}

/** The target currency `c.code`: the one asked for, else the workspace's reporting currency. */
function currencyCte(currency: string | undefined): string {
  return currency
    ? `WITH cur AS (SELECT '${currency}' AS code)`
    : "WITH cur AS (SELECT coalesce((SELECT s.reporting_currency FROM workspace_settings s), 'USD') AS code)";
}

/** The daily rate `alias` of `base` into c.code on `day`. */
const rateJoin = (alias: string, base: string, day: string) =>
  ` LEFT JOIN fx_rates_daily ${alias} ON ${alias}.base_currency = ${base} AND ${alias}.quote_currency = c.code AND ${alias}.calendar_date = ${day}`;

/** Entry `e` in c.code (null when its currency has no rate that day, so sums leave it out). */
const AMOUNT = 'CASE WHEN e.currency = c.code THEN e.amount ELSE e.amount * r.rate END';

interface Range {
  start: string;
  end: string;
}

/**
 * The entries a report sums (its WHERE on `e`), for the rows and for the FX statement alike. Budget vs actual sums
 * the entries of each line's category, direction and whole month: those alone, not every spend and income entry of
 * the range, are what its FX statement counts.
 */
function entryScope(kind: ReportKind, { start, end }: Range, from: string, to = from): string {
  switch (kind) {
    case 'spend_by_category':
      return `e.kind = 'spend' AND e.ts >= ${start} AND e.ts < ${end}`;
    case 'balances':
      return `e.ts < ${end}`;
    case 'monthly_trend':
      return `e.kind <> 'transfer' AND e.ts >= ${start} AND e.ts < ${end}`;
    case 'budget_vs_actual':
      return [
        `e.kind IN ('spend', 'income') AND e.ts >= ${midnight(monthStart(from))} AND e.ts < ${midnight(nextMonth(monthStart(to)))}`,
        ' AND EXISTS (SELECT 1 FROM budget_lines l WHERE l.direction = e.kind AND l.category = e.category',
        ` AND l.budget_month >= ${dateLit(monthStart(from))} AND l.budget_month <= ${dateLit(to)}`,
        " AND e.ts >= l.budget_month::timestamptz AND e.ts < l.budget_month::timestamptz + INTERVAL '1 month')",
      ].join('');
  }
}

function rowsSql(kind: ReportKind, from: string, to: string, range: Range): string {
  const { start } = range;
  switch (kind) {
    case 'spend_by_category':
      return [
        `SELECT coalesce(e.category, '(uncategorised)') AS category, c.code AS currency,`,
        ` 0 - coalesce(sum(${AMOUNT}), 0) AS spent, count(*) AS entries`,
        ` FROM cur c JOIN ledger_entries e ON ${entryScope(kind, range, from)}`,
        rateJoin('r', 'e.currency', 'e.ts::date'),
        ` GROUP BY coalesce(e.category, '(uncategorised)'), c.code`,
        ' ORDER BY spent DESC, category',
      ].join('');
    case 'budget_vs_actual':
      return [
        'SELECT b.budget_month, b.direction, b.category, c.code AS currency,',
        ' CASE WHEN b.currency = c.code THEN b.planned_value ELSE b.planned_value * rb.rate END AS planned_value,',
        ` CASE WHEN b.direction = 'spend' THEN -1 ELSE 1 END * coalesce(sum(${AMOUNT}), 0) AS actual`,
        ' FROM cur c JOIN budget_lines b',
        ` ON b.budget_month >= ${dateLit(monthStart(from))} AND b.budget_month <= ${dateLit(to)}`,
        rateJoin('rb', 'b.currency', 'b.budget_month'),
        ' LEFT JOIN ledger_entries e ON e.kind = b.direction AND e.category = b.category',
        // The months of the range as constant bounds too (implied by each line's own month): with only the line's
        // bounds, PostgreSQL hashed every entry of the workspace for the join, ten years of them for one month's
        // report (issue 42); with these it reads the range from (workspace_id, ts).
        ` AND e.ts >= ${midnight(monthStart(from))} AND e.ts < ${midnight(nextMonth(monthStart(to)))}`,
        // Bounds cast to timestamptz: compared with ts, a date goes through timestamptz_ge_date, which is not
        // leakproof, so under row-level security no index could use the comparison.
        " AND e.ts >= b.budget_month::timestamptz AND e.ts < b.budget_month::timestamptz + INTERVAL '1 month'",
        rateJoin('r', 'e.currency', 'e.ts::date'),
        ' GROUP BY b.line_id, b.budget_month, b.direction, b.category, c.code, b.currency, b.planned_value, rb.rate',
        ' ORDER BY b.budget_month, b.direction, b.category',
      ].join('');
    case 'balances':
      // One row per account and native currency: the contract's columns (converted) first, then the native ones.
      // The balance sums every entry up to `to`; entries counts those within the range, as change sums them.
      return [
        `SELECT e.account_id, c.code AS currency, coalesce(sum(${AMOUNT}), 0) AS balance,`,
        ` coalesce(sum(CASE WHEN e.ts >= ${start} THEN ${AMOUNT} ELSE 0 END), 0) AS change,`,
        ` sum(CASE WHEN e.ts >= ${start} THEN 1 ELSE 0 END) AS entries, max(e.ts) AS last_ts,`,
        ' e.currency AS native_currency, sum(e.amount) AS native_balance,',
        ` sum(CASE WHEN e.ts >= ${start} THEN e.amount ELSE 0 END) AS native_change`,
        ` FROM cur c JOIN ledger_entries e ON ${entryScope(kind, range, from)}`,
        rateJoin('r', 'e.currency', 'e.ts::date'),
        ' GROUP BY e.account_id, e.currency, c.code',
        ' ORDER BY e.account_id, e.currency',
      ].join('');
    case 'monthly_trend': {
      const months = monthBuckets(from, to)
        .map(([a, b]) => `(${midnight(a)}, ${midnight(b)})`)
        .join(', ');
      return [
        'SELECT m.month_start::date AS month, c.code AS currency,',
        ` coalesce(sum(CASE WHEN e.kind = 'income' THEN ${AMOUNT} END), 0) AS income,`,
        ` 0 - coalesce(sum(CASE WHEN e.kind = 'spend' THEN ${AMOUNT} END), 0) AS spent,`,
        ` coalesce(sum(${AMOUNT}), 0) AS net`,
        ` FROM cur c JOIN (VALUES ${months}) AS m (month_start, month_end) ON true`,
        ' LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_end',
        ` AND ${entryScope(kind, range, from)}`,
        rateJoin('r', 'e.currency', 'e.ts::date'),
        ' GROUP BY m.month_start, c.code',
        ' ORDER BY m.month_start',
      ].join('');
    }
  }
}

/**
 * Per foreign currency among what the report sums: how many items, how many had no rate, the newest rate date, and
 * the newest local day a rate converted (calendar_date: null where the join found no rate).
 */
function fxSql(kind: ReportKind, from: string, to: string, range: Range): string {
  const entries = [
    'SELECT e.currency, CASE WHEN r.rate IS NULL THEN 1 ELSE 0 END AS missing, r.source_rate_date AS rate_date,',
    ' r.calendar_date AS converted_day',
    ` FROM cur c JOIN ledger_entries e ON e.currency <> c.code AND ${entryScope(kind, range, from, to)}`,
    rateJoin('r', 'e.currency', 'e.ts::date'),
  ].join('');
  const lines =
    kind === 'budget_vs_actual'
      ? [
          ' UNION ALL SELECT b.currency, CASE WHEN rb.rate IS NULL THEN 1 ELSE 0 END, rb.source_rate_date, rb.calendar_date',
          ` FROM cur c JOIN budget_lines b ON b.currency <> c.code AND b.budget_month >= ${dateLit(monthStart(from))} AND b.budget_month <= ${dateLit(to)}`,
          rateJoin('rb', 'b.currency', 'b.budget_month'),
        ].join('')
      : '';
  return [
    'SELECT x.currency, count(*) AS items, sum(x.missing) AS unconverted, max(x.rate_date) AS newest_rate_date,',
    ' max(x.converted_day) AS newest_converted_day',
    ` FROM (${entries}${lines}) AS x GROUP BY x.currency ORDER BY x.currency`,
  ].join('');
}

/**
 * The report as one read-only script of three SELECTs (one snapshot): the currency used, the rows, and the FX
 * use per foreign currency. Throws ReportInputError for a bad range.
 */
export function reportScript(input: ReportInput): string[] {
  const { kind, from, to, currency } = checkedReportInput(input);
  const range = { start: midnight(from), end: midnight(addDays(to, 1)) };
  const cte = currencyCte(currency);
  return [
    `${cte} SELECT c.code AS currency FROM cur c`,
    `${cte} ${rowsSql(kind, from, to, range)}`,
    `${cte} ${fxSql(kind, from, to, range)}`,
  ];
}
