import { DEFAULT_FX_DAYS } from './config.js';

/** Hints for /schema on the two FX relations (`fxDays` is EXPENSE_FX_DAYS). */
export function fxSchemaHints(
  fxDays: number = DEFAULT_FX_DAYS,
): Record<'fx_rates_raw' | 'fx_rates_daily', string[]> {
  return {
    fx_rates_raw: [
      'Read-only ECB reference rates as published: base_currency is always EUR, rate = units of quote_currency per 1 EUR, market days only (no weekends or TARGET holidays).',
      'To convert amounts use fx_rates_daily instead: it has every day and every currency pair.',
    ],
    fx_rates_daily: [
      'Read-only. rate = units of quote_currency per 1 base_currency on calendar_date; amount_in_quote = amount * rate.',
      'Convert with one join: JOIN fx_rates_daily r ON r.base_currency = e.currency AND r.quote_currency = s.reporting_currency AND r.calendar_date = e.ts::date (s = workspace_settings, joined ON true).',
      'Every ordered pair of known currencies is present, including X->X (rate 1); inverse pairs are 1/rate and cross pairs go through EUR.',
      'Weekends and holidays carry the last published rate forward; source_rate_date is the market day the rate comes from.',
      `The window is bounded: from ${fxDays} days before the latest published rate to today. Dates outside it (or before a currency's first rate) have no row, so use LEFT JOIN and count(r.rate) to find unconverted entries.`,
    ],
  };
}

export const FX_SCHEMA_HINTS = fxSchemaHints();
