import { z } from 'zod';

/*
 * The reports: fixed, reviewed SQL in the service's dialect, sent through the same SQL API (and so the same
 * guard, row-level security and limits) as any agent's query. The MCP `report` tool and the console share
 * these definitions. Inputs are validated here and inlined as literals only after that (dates, a currency
 * code): nothing free-form ever reaches the text.
 */

export const REPORT_KINDS = ['spend_by_category', 'budget_vs_actual', 'balances', 'monthly_trend'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

const IsoDate = z.iso.date();

export const ReportInputSchema = z.object({
  kind: z.enum(REPORT_KINDS),
  from: IsoDate.describe('first day, YYYY-MM-DD'),
  to: IsoDate.describe('last day (inclusive), YYYY-MM-DD'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional()
    .describe('convert to this ISO 4217 code'),
});
export type ReportInput = z.infer<typeof ReportInputSchema>;

/** The longest range of monthly buckets a report builds (its VALUES list). */
export const MAX_REPORT_MONTHS = 36;

export class ReportInputError extends Error {}

const dateLit = (d: string) => `DATE '${d}'`;

function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  return t.toISOString().slice(0, 10);
}

function monthStart(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

function nextMonth(first: string): string {
  const t = new Date(`${first}T00:00:00Z`);
  t.setUTCMonth(t.getUTCMonth() + 1);
  return t.toISOString().slice(0, 10);
}

/** The months touching [from, to] as [first day, first day of the next month]. */
export function monthBuckets(from: string, to: string): [string, string][] {
  const out: [string, string][] = [];
  for (let m = monthStart(from); m <= to; m = nextMonth(m)) {
    out.push([m, nextMonth(m)]);
    if (out.length > MAX_REPORT_MONTHS) {
      throw new ReportInputError(`A report covers at most ${MAX_REPORT_MONTHS} months; narrow from/to.`);
    }
  }
  return out;
}

/**
 * The amount of ledger row `e`, converted into `currency` with the daily rate of its day when given
 * (fx_rates_daily `r` joined on the entry's currency and date); null when no rate is known, so sums skip it
 * and `unconverted` counts it.
 */
function amountIn(currency: string | undefined): string {
  return currency
    ? `CASE WHEN e.currency = '${currency}' THEN e.amount ELSE e.amount * r.rate END`
    : 'e.amount';
}

function fxJoin(currency: string | undefined): string {
  return currency
    ? ` LEFT JOIN fx_rates_daily r ON r.base_currency = e.currency AND r.quote_currency = '${currency}' AND r.calendar_date = e.ts::date`
    : '';
}

function unconverted(currency: string | undefined): string {
  return currency
    ? `, sum(CASE WHEN e.currency <> '${currency}' AND r.rate IS NULL THEN 1 ELSE 0 END) AS unconverted`
    : '';
}

/** The SQL of a report, after validating its input. Throws ReportInputError for a bad range. */
export function reportSql(input: ReportInput): string {
  const { kind, from, to, currency } = ReportInputSchema.parse(input);
  if (from > to) throw new ReportInputError('`from` is after `to`.');
  const start = dateLit(from);
  const end = dateLit(addDays(to, 1)); // exclusive
  const cur = currency ? `'${currency}'` : 'e.currency';
  switch (kind) {
    case 'spend_by_category':
      return [
        `SELECT coalesce(e.category, '(uncategorised)') AS category, ${cur} AS currency,`,
        ` 0 - sum(${amountIn(currency)}) AS spent, count(*) AS entries${unconverted(currency)}`,
        ` FROM ledger_entries e${fxJoin(currency)}`,
        ` WHERE e.kind = 'spend' AND e.ts >= ${start} AND e.ts < ${end}`,
        ` GROUP BY coalesce(e.category, '(uncategorised)')${currency ? '' : ', e.currency'}`,
        ' ORDER BY spent DESC, category',
      ].join('');
    case 'budget_vs_actual':
      return [
        'SELECT b.budget_month, b.direction, b.category, b.currency, b.planned_value,',
        ' coalesce((SELECT sum(e.amount) FROM ledger_entries e',
        ' WHERE e.kind = b.direction AND e.category = b.category AND e.currency = b.currency',
        " AND e.ts >= b.budget_month AND e.ts < b.budget_month + INTERVAL '1 month'), 0)",
        " * CASE WHEN b.direction = 'spend' THEN -1 ELSE 1 END AS actual",
        ' FROM budget_lines b',
        ` WHERE b.budget_month >= ${dateLit(monthStart(from))} AND b.budget_month < ${end}`,
        currency ? ` AND b.currency = '${currency}'` : '',
        ' ORDER BY b.budget_month, b.direction, b.category',
      ].join('');
    case 'balances':
      return [
        `SELECT e.account_id, ${cur} AS currency, sum(${amountIn(currency)}) AS balance,`,
        ` sum(CASE WHEN e.ts >= ${start} THEN ${amountIn(currency)} ELSE 0 END) AS change,`,
        ` count(*) AS entries, max(e.ts) AS last_ts${unconverted(currency)}`,
        ` FROM ledger_entries e${fxJoin(currency)}`,
        ` WHERE e.ts < ${end}`,
        ` GROUP BY e.account_id${currency ? '' : ', e.currency'}`,
        ' ORDER BY e.account_id, currency',
      ].join('');
    case 'monthly_trend': {
      const months = monthBuckets(from, to)
        .map(([a, b]) => `(${dateLit(a)}, ${dateLit(b)})`)
        .join(', ');
      const amount = amountIn(currency);
      return [
        `SELECT m.month_start AS month, ${currency ? `'${currency}'` : 'e.currency'} AS currency,`,
        ` coalesce(sum(CASE WHEN e.kind = 'income' THEN ${amount} ELSE 0 END), 0) AS income,`,
        ` 0 - coalesce(sum(CASE WHEN e.kind = 'spend' THEN ${amount} ELSE 0 END), 0) AS spent,`,
        ` coalesce(sum(CASE WHEN e.kind = 'transfer' THEN 0 ELSE ${amount} END), 0) AS net${unconverted(currency)}`,
        ` FROM (VALUES ${months}) AS m (month_start, month_end)`,
        ` LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_end`,
        ` AND e.ts >= ${start} AND e.ts < ${end}`,
        fxJoin(currency),
        ` GROUP BY m.month_start${currency ? '' : ', e.currency'}`,
        ' ORDER BY m.month_start, currency',
      ].join('');
    }
  }
}

export const REPORT_DESCRIPTIONS: Record<ReportKind, string> = {
  spend_by_category: 'spending per category (positive numbers), largest first',
  budget_vs_actual: 'each budget line of the months in range with the actual amount of its category',
  balances: 'per account: balance at the end of `to`, change since `from`',
  monthly_trend: 'per month: income, spending and net (transfers excluded)',
};
