import { DEFAULT_FX_DAYS } from '../../platform/config/fx.js';
import type { Database } from '../../platform/storage/database.js';
import { type ImportSummary, importRates } from './import.js';
import { parseEcbCsv } from './parse-csv.js';

/**
 * Seed rates for a new embedded installation, so it can convert at once: the same ECB history excerpt as
 * features/fx/test/fixtures/eurofxref-hist-excerpt.csv (16 Dec 2024 - 3 Jan 2025, USD JPY GBP SEK CHF, RUB all N/A).
 * `fx sync` adds the full, current series beside them.
 */
export const FX_SEED_CSV = `Date,USD,JPY,GBP,SEK,CHF,RUB,
2025-01-03,1.0299,162.88,0.8292,11.51,0.9395,N/A,
2025-01-02,1.0321,163.23,0.82765,11.4985,0.9389,N/A,
2024-12-31,1.0389,163.06,0.82918,11.459,0.9412,N/A,
2024-12-30,1.0444,164.18,0.82935,11.482,0.9423,N/A,
2024-12-27,1.0427,164.72,0.83035,11.5125,0.9393,N/A,
2024-12-24,1.0405,163.69,0.82905,11.4915,0.9361,N/A,
2024-12-23,1.0427,163.66,0.8295,11.4865,0.9335,N/A,
2024-12-20,1.039,163.34,0.8309,11.4795,0.9294,N/A,
2024-12-19,1.0395,163.3,0.8252,11.4975,0.9365,N/A,
2024-12-18,1.0497,161.02,0.82658,11.521,0.9384,N/A,
2024-12-17,1.0505,161.45,0.82695,11.5215,0.937,N/A,
2024-12-16,1.0518,161.48,0.8288,11.5165,0.9382,N/A,
`;

export interface SeedOptions {
  windowDays?: number;
  today?: string;
}

/**
 * Imports the bundled excerpt when fx_rates_raw is empty, so a new embedded installation converts at once;
 * returns what was imported, or null when rates were already there. Call after migrations.
 */
export async function seedFxIfEmpty(db: Database, options: SeedOptions = {}): Promise<ImportSummary | null> {
  const { rows } = await db.query<{ present: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM public.fx_rates_raw) AS present',
  );
  if (rows[0]?.present) return null;
  const parsed = parseEcbCsv(FX_SEED_CSV);
  if (!parsed.ok) throw new Error(`the bundled FX seed is malformed: ${parsed.error.reason}`);
  return importRates(db, parsed.value, {
    windowDays: options.windowDays ?? DEFAULT_FX_DAYS,
    today: options.today,
  });
}
