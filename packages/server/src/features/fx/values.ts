import type { FxLayout, ParsedRates, PublishedRate } from './types.js';

/** Validation of the cells both layouts share. */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const CURRENCY = /^[A-Z]{3}$/;
/** ECB rates are plain positive decimals: no sign, no exponent, no thousands separator. */
const DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;

export function isCurrencyCode(text: string): boolean {
  return CURRENCY.test(text);
}

/** A real calendar date in YYYY-MM-DD form (rejects 2025-02-30). */
export function isIsoDate(text: string): boolean {
  const m = ISO_DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 1900;
}

/** Null when the text is a usable rate, otherwise the reason it is not. */
export function rateProblem(text: string): string | null {
  if (!DECIMAL.test(text)) return 'is not a positive decimal number';
  if (!/[1-9]/.test(text)) return 'is zero';
  return null;
}

export function toParsedRates(layout: FxLayout, rates: PublishedRate[], days: number): ParsedRates {
  rates.sort((a, b) => (a.date === b.date ? compare(a.currency, b.currency) : compare(a.date, b.date)));
  const currencies = [...new Set(rates.map((r) => r.currency))].sort();
  return { layout, rates, currencies, days };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
