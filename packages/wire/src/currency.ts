/**
 * ISO 4217 currency codes and their minor units, and IANA time zone names: what a workspace's settings and a
 * report's currency may be. The codes are those the runtime's ICU data knows as current currencies
 * (`Intl.supportedValuesOf('currency')`); the minor units are ISO 4217's (2 unless listed below).
 */

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217 currencies whose minor unit is not 2 (list one of the standard). */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** True for a current ISO 4217 code in upper case (EUR, USD, JPY). */
export function isIsoCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
}

/** The digits after the decimal point of `code`'s minor unit (EUR 2, JPY 0, KWD 3). */
export function minorUnits(code: string): number {
  return MINOR_UNITS[code] ?? 2;
}

/**
 * A decimal string (PostgreSQL numeric text) rounded to `digits` places, half away from zero as PostgreSQL's
 * round(numeric) does, written with exactly `digits` places: `12.6128750364` -> `12.61`, `-0.005` -> `-0.01`.
 * Exact (no binary floating point). Text that is not a plain decimal comes back unchanged.
 */
export function roundDecimal(text: string, digits: number): string {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return text;
  const [, sign = '', whole = '0', fraction = ''] = m;
  const kept = (fraction + '0'.repeat(digits)).slice(0, digits);
  let units = BigInt(whole + kept);
  if ((fraction[digits] ?? '0') >= '5') units += 1n;
  const abs = units.toString().padStart(digits + 1, '0');
  const out = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
  return sign && units !== 0n ? `-${out}` : out;
}

/** True for an IANA time zone name the runtime knows (Europe/Berlin, America/New_York, UTC). */
export function isIanaTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
