/**
 * ISO 4217 currency codes, from the platform's own list (Intl.supportedValuesOf, in Node and every current browser):
 * a column of three capital letters is a currency only when they are codes (`WEB`, `ATM` are not), and a code a file
 * states (`Currency,MYR`) is taken whatever the currency.
 */
const CODES: ReadonlySet<string> = new Set(
  typeof Intl.supportedValuesOf === 'function'
    ? Intl.supportedValuesOf('currency')
    : 'EUR GBP USD CHF PLN SEK NOK DKK CZK HUF RON BGN ISK CAD AUD NZD JPY CNY HKD SGD ZAR MXN BRL INR TRY ILS AED'.split(
        ' ',
      ),
);

export const isCurrencyCode = (text: string): boolean => CODES.has(text);

/** The digits a currency's amounts have after the decimal mark (2 for EUR, 0 for ISK and JPY, 3 for KWD). */
export function minorDigits(code: string): number | undefined {
  if (!isCurrencyCode(code)) return undefined;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits;
  } catch {
    return undefined;
  }
}
