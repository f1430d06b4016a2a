import type { Database, Queryable } from '../../platform/storage/database.js';
import { addDays, daysBetween } from './dates.js';
import { fxTransaction } from './role.js';

export interface RebuildOptions {
  /** Days kept before the latest published rate (EXPENSE_FX_DAYS). */
  windowDays: number;
  /** The last day to fill when it is later than the latest rate; default: the current UTC date. */
  today?: string;
  /** The earliest market day whose raw rate changed; days from here on are recomputed. */
  changedFrom?: string | null;
  /** Recompute every day of the window. */
  full?: boolean;
}

export interface RebuildResult {
  /** `full`: every day recomputed; `incremental`: only `daysRebuilt` days; `empty`: no raw rate exists. */
  mode: 'full' | 'incremental' | 'empty';
  windowStart: string | null;
  windowEnd: string | null;
  /** Every currency of the table, EUR included. */
  currencies: string[];
  daysRebuilt: number;
  rowsDeleted: number;
  rowsInserted: number;
  rowsTotal: number;
}

const RAW_ECB = `f.base_currency = 'EUR' AND f.source = 'ecb'`;

/**
 * Fills every calendar day of [from, to] for every ordered pair of `currencies` (EUR among them) with the
 * rate in force that day: the last ECB rate published on or before it. EUR->X is the published rate as is,
 * X->EUR is 1/rate, X->Y is rate(Y)/rate(X) through EUR, X->X is 1. source_rate_date is the market day of
 * the older leg (for X->X the day itself). A currency has rows from its first published rate on.
 */
const FILL_DAYS = `
INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
WITH days AS (
  SELECT g.d::date AS d FROM generate_series($1::date, $2::date, interval '1 day') AS g(d)
), legs AS (
  SELECT days.d, c.currency, r.rate, r.rate_date
  FROM days
  CROSS JOIN json_array_elements_text($3::json) AS c(currency)
  CROSS JOIN LATERAL (
    SELECT f.rate, f.rate_date FROM public.fx_rates_raw f
    WHERE ${RAW_ECB} AND f.quote_currency = c.currency AND f.rate_date <= days.d
    ORDER BY f.rate_date DESC
    LIMIT 1
  ) r
  UNION ALL
  SELECT days.d, 'EUR', 1::numeric, days.d FROM days
)
SELECT a.currency, b.currency, a.d,
  CASE
    WHEN a.currency = b.currency THEN 1::numeric
    WHEN a.currency = 'EUR' THEN b.rate
    WHEN b.currency = 'EUR' THEN 1 / a.rate
    ELSE b.rate / a.rate
  END,
  CASE WHEN a.currency = b.currency THEN a.d ELSE least(a.rate_date, b.rate_date) END
FROM legs a
JOIN legs b ON b.d = a.d`;

async function one<R>(tx: Queryable, text: string, params: unknown[] = []): Promise<R> {
  const { rows } = await tx.query<R>(text, params);
  return rows[0]!;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Brings fx_rates_daily up to date inside the caller's transaction (run as the FX role): computes the window,
 * deletes the days that left it or must be recomputed, and fills them again. Idempotent: with no raw change
 * and the same day, it deletes and inserts nothing.
 */
export async function rebuildDailyIn(tx: Queryable, options: RebuildOptions): Promise<RebuildResult> {
  const target = await one<{ start: string | null; end: string | null; currencies: string | null }>(
    tx,
    `WITH bounds AS (
       SELECT min(f.rate_date) AS first, max(f.rate_date) AS last FROM public.fx_rates_raw f WHERE ${RAW_ECB}
     ), win AS (
       SELECT greatest(first, last - $1::int) AS start,
              greatest(last, coalesce($2::date, (now() AT TIME ZONE 'UTC')::date)) AS "end"
       FROM bounds WHERE last IS NOT NULL
     )
     SELECT win.start::text AS start, win."end"::text AS "end",
       (SELECT string_agg(DISTINCT f.quote_currency, ',' ORDER BY f.quote_currency) FROM public.fx_rates_raw f
        WHERE ${RAW_ECB} AND f.rate_date BETWEEN win.start AND win."end") AS currencies
     FROM (SELECT 1) AS one LEFT JOIN win ON true`,
    [options.windowDays, options.today ?? null],
  );
  if (target.start === null || target.end === null) {
    const { rowCount } = await tx.query('DELETE FROM public.fx_rates_daily');
    return {
      mode: 'empty',
      windowStart: null,
      windowEnd: null,
      currencies: [],
      daysRebuilt: 0,
      rowsDeleted: rowCount,
      rowsInserted: 0,
      rowsTotal: 0,
    };
  }
  // Lists travel as comma-separated text: drivers differ in how they return arrays.
  const currencies = [...(target.currencies?.split(',') ?? []), 'EUR'].sort();

  const current = await one<{ start: string | null; end: string | null; currencies: string | null }>(
    tx,
    `WITH b AS (SELECT min(calendar_date) AS start, max(calendar_date) AS "end" FROM public.fx_rates_daily)
     SELECT b.start::text AS start, b."end"::text AS "end",
       (SELECT string_agg(DISTINCT d.base_currency, ',' ORDER BY d.base_currency) FROM public.fx_rates_daily d
        WHERE d.calendar_date = b."end") AS currencies
     FROM b`,
  );
  const full =
    options.full === true ||
    current.start === null ||
    current.end === null ||
    current.start > target.start ||
    !sameList(current.currencies?.split(',') ?? [], currencies);

  // The first day to recompute: a changed rate is carried forward to every later day; new days follow the old end.
  let from = target.start;
  if (!full) {
    const afterOldEnd = addDays(current.end!, 1);
    from = [afterOldEnd, options.changedFrom ?? afterOldEnd].sort()[0]!;
    if (from < target.start) from = target.start;
  }

  const deleted = await tx.query(
    `DELETE FROM public.fx_rates_daily
     WHERE calendar_date < $1::date OR calendar_date >= $2::date OR calendar_date > $3::date`,
    [target.start, from, target.end],
  );
  let rowsInserted = 0;
  let daysRebuilt = 0;
  if (from <= target.end) {
    const inserted = await tx.query(FILL_DAYS, [
      from,
      target.end,
      JSON.stringify(currencies.filter((c) => c !== 'EUR')),
    ]);
    rowsInserted = inserted.rowCount;
    daysRebuilt = daysBetween(from, target.end) + 1;
  }
  const total = await one<{ n: string }>(tx, 'SELECT count(*)::text AS n FROM public.fx_rates_daily');
  return {
    mode: full ? 'full' : 'incremental',
    windowStart: target.start,
    windowEnd: target.end,
    currencies,
    daysRebuilt,
    rowsDeleted: deleted.rowCount,
    rowsInserted,
    rowsTotal: Number(total.n),
  };
}

/** Rebuilds fx_rates_daily in its own transaction, as the FX role (e.g. to extend it to a new day). */
export function rebuildFxDaily(db: Database, options: RebuildOptions): Promise<RebuildResult> {
  return fxTransaction(db, (tx) => rebuildDailyIn(tx, options));
}
