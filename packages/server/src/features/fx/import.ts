import type { Database, Queryable } from '../../platform/storage/database.js';
import { type RebuildResult, rebuildDailyIn } from './daily.js';
import { parseEcbFile } from './parse.js';
import { fxTransaction } from './role.js';
import type { FxFileError, ParsedRates, PublishedRate } from './types.js';

export const FX_SOURCE_ECB = 'ecb';

export interface ImportOptions {
  /** Days kept in fx_rates_daily before the latest rate (EXPENSE_FX_DAYS). */
  windowDays: number;
  /** Last day of the daily table when later than the latest rate; default: the current UTC date. */
  today?: string;
}

export interface ImportSummary {
  layout: ParsedRates['layout'];
  /** Market days and rates in the file. */
  days: number;
  rates: number;
  firstDate: string;
  lastDate: string;
  /** Rows of fx_rates_raw added, changed (a corrected rate) and already present with the same value. */
  inserted: number;
  updated: number;
  unchanged: number;
  daily: RebuildResult;
}

export type ImportResult = { ok: true; value: ImportSummary } | { ok: false; error: FxFileError };

const BATCH = 5_000;

/**
 * Upserts published rates (base EUR, source ecb). A rate already stored with the same value is left alone,
 * so a repeated import changes nothing; a different value (an ECB correction) replaces it.
 */
const UPSERT = `
WITH input AS (
  SELECT t.d::date AS rate_date, t.c AS quote_currency, t.r::numeric AS rate
  FROM json_to_recordset($1::json) AS t(d text, c text, r text)
), upserted AS (
  INSERT INTO public.fx_rates_raw AS f (base_currency, quote_currency, rate_date, rate, source)
  SELECT 'EUR', quote_currency, rate_date, rate, $2 FROM input
  ON CONFLICT (base_currency, quote_currency, rate_date, source)
  DO UPDATE SET rate = EXCLUDED.rate, inserted_at = now()
  WHERE f.rate IS DISTINCT FROM EXCLUDED.rate
  RETURNING (xmax = 0) AS inserted, rate_date
)
SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
  min(rate_date)::text AS changed_from
FROM upserted`;

async function upsertIn(tx: Queryable, rates: PublishedRate[]) {
  let inserted = 0;
  let updated = 0;
  let changedFrom: string | null = null;
  for (let i = 0; i < rates.length; i += BATCH) {
    const batch = rates.slice(i, i + BATCH).map((r) => ({ d: r.date, c: r.currency, r: r.rate }));
    const { rows } = await tx.query<{ inserted: number; updated: number; changed_from: string | null }>(
      UPSERT,
      [JSON.stringify(batch), FX_SOURCE_ECB],
    );
    const row = rows[0]!;
    inserted += Number(row.inserted);
    updated += Number(row.updated);
    if (row.changed_from && (changedFrom === null || row.changed_from < changedFrom))
      changedFrom = row.changed_from;
  }
  return { inserted, updated, changedFrom };
}

/** Stores parsed rates and brings fx_rates_daily up to date, in one transaction as the FX role. */
export async function importRates(
  db: Database,
  parsed: ParsedRates,
  options: ImportOptions,
): Promise<ImportSummary> {
  return fxTransaction(db, async (tx) => {
    const { inserted, updated, changedFrom } = await upsertIn(tx, parsed.rates);
    const daily = await rebuildDailyIn(tx, {
      windowDays: options.windowDays,
      today: options.today,
      changedFrom,
    });
    return {
      layout: parsed.layout,
      days: parsed.days,
      rates: parsed.rates.length,
      firstDate: parsed.rates[0]!.date,
      lastDate: parsed.rates[parsed.rates.length - 1]!.date,
      inserted,
      updated,
      unchanged: parsed.rates.length - inserted - updated,
      daily,
    };
  });
}

/** Parses an ECB file (either layout) and imports it; a malformed file is refused before anything is written. */
export async function importFxText(
  db: Database,
  text: string,
  options: ImportOptions,
): Promise<ImportResult> {
  const parsed = parseEcbFile(text);
  if (!parsed.ok) return parsed;
  return { ok: true, value: await importRates(db, parsed.value, options) };
}
