/** One reference rate as the ECB publishes it: `rate` units of `currency` per 1 EUR, kept as decimal text. */
export interface PublishedRate {
  date: string;
  currency: string;
  rate: string;
}

export type FxLayout = 'csv' | 'xml';

export interface ParsedRates {
  layout: FxLayout;
  /** Sorted by date, then currency. */
  rates: PublishedRate[];
  /** Every currency with at least one rate, sorted. */
  currencies: string[];
  /** Market days in the file (rows or `Cube time=` elements), including days whose cells are all N/A. */
  days: number;
}

/** Why a file was refused: stable code, 1-based line of the file, and a sentence a person can act on. */
export interface FxFileError {
  code: 'fx_malformed_file';
  line: number;
  reason: string;
}

export type ParseResult = { ok: true; value: ParsedRates } | { ok: false; error: FxFileError };

export const malformed = (line: number, reason: string): { ok: false; error: FxFileError } => ({
  ok: false,
  error: { code: 'fx_malformed_file', line, reason },
});
