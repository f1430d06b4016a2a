import { z } from 'zod';
import { isIsoCurrency } from './currency.js';
import { checkReportRange } from './report-range.js';

/*
 * The reports' contract: the kinds, the input every client sends (checked here: schema and range, before any SQL
 * is written), the answer's shape and the kinds' descriptions. GET /v1/reports/{kind} runs them (the SQL and the
 * shaping of its rows are the server's: packages/server/src/features/reports/{sql,data}.ts); the MCP `report`
 * tool, `expense report` and the console's reports page show what it answers.
 *
 * Money comes out in one currency: the one asked for, else the workspace's reporting_currency, rounded to its minor
 * units; an entry with no rate for its day is left out of the sums and counted in `fx.unconverted`.
 */

export const REPORT_KINDS = ['spend_by_category', 'budget_vs_actual', 'balances', 'monthly_trend'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

const IsoDate = z.iso.date();

export const ReportCurrencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code in upper case, e.g. EUR or USD')
  .refine(isIsoCurrency, { message: 'must be an ISO 4217 currency code in upper case, e.g. EUR or USD' })
  .describe("convert into this ISO 4217 code (default: the workspace's reporting_currency)");

export const ReportInputSchema = z.object({
  kind: z.enum(REPORT_KINDS),
  from: IsoDate.describe('first day, YYYY-MM-DD'),
  to: IsoDate.describe('last day (inclusive), YYYY-MM-DD'),
  currency: ReportCurrencySchema.optional(),
});
export type ReportInput = z.infer<typeof ReportInputSchema>;

/** GET /reports/{kind}: the query string (kind is the path's). */
export const ReportQuerySchema = ReportInputSchema.omit({ kind: true }).strict();
export const ReportParamsSchema = z.object({ kind: z.enum(REPORT_KINDS) });

export {
  checkReportRange,
  isReportDay,
  MAX_REPORT_MONTHS,
  REPORT_FIRST_DAY,
  REPORT_LAST_DAY,
  ReportInputError,
} from './report-range.js';

/** A rate used more than this many days after its market day is called stale. */
export const STALE_RATE_DAYS = 7;

/** The input as every report checks it (schema, then checkReportRange); ReportInputError for a bad range. */
export function checkedReportInput(input: ReportInput): ReportInput {
  const checked = ReportInputSchema.parse(input);
  checkReportRange(checked.from, checked.to);
  return checked;
}

export const ReportFxSchema = z.object({
  newestRateDate: z
    .string()
    .nullable()
    .describe('the newest fx_rates_daily market day used for a conversion (null: nothing converted)'),
  stale: z
    .boolean()
    .describe(
      `that day is more than ${STALE_RATE_DAYS} days before the newest day it converted (a rate carried forward past a week)`,
    ),
  unconverted: z
    .object({
      count: z
        .number()
        .int()
        .describe('entries (and budget lines) left out of the sums: no rate for their day'),
      currencies: z.array(z.string()).describe('their currencies'),
    })
    .describe('what could not be converted'),
});
export type ReportFx = z.infer<typeof ReportFxSchema>;

export const ReportDataSchema = z.object({
  kind: z.enum(REPORT_KINDS),
  from: z.string(),
  to: z.string(),
  currency: z.string().describe('every amount is in this currency, rounded to its minor units'),
  rows: z.array(z.record(z.string(), z.unknown())),
  fx: ReportFxSchema,
  // Read by people too (expense report prints them): facts in plain words, no instructions to an agent.
  notes: z.array(z.string()).describe('what to tell the user with the numbers (stale rates, missing data)'),
});
export type ReportData = z.infer<typeof ReportDataSchema>;

export const REPORT_DESCRIPTIONS: Record<ReportKind, string> = {
  spend_by_category: 'spending per category (positive numbers, refunds subtracted), largest first',
  budget_vs_actual: 'each budget line of the months in range with the actual amount of its category',
  balances:
    'per account and currency: balance at the end of `to` and change since `from`, converted and in the native currency (native_balance, native_change); entries within the range',
  monthly_trend: 'per month: income, spending and net (transfers excluded)',
};
