// Amounts and dates as a person reads them: the browser's locale, the workspace's currency and time zone.

/** The locale numbers and dates are written in: the browser's (the workspace has no locale setting). */
export function locale() {
  return navigator.languages?.[0] ?? navigator.language ?? 'en-US';
}

/** @type {Map<string, Intl.NumberFormat>} */
const moneyFormats = new Map();

/** An amount in a currency with its minor units (cents), e.g. "€1,234.50"; a non-number is shown as "—". */
/**
 * @param {unknown} value
 * @param {string | null} [currency]
 */
export function money(value, currency) {
  if (value === null || value === undefined || value === '') return '—';
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const code = /^[A-Z]{3}$/.test(currency ?? '') ? currency : null;
  if (!code) return n.toLocaleString(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const key = `${locale()} ${code}`;
  if (!moneyFormats.has(key)) {
    moneyFormats.set(key, new Intl.NumberFormat(locale(), { style: 'currency', currency: code }));
  }
  return /** @type {Intl.NumberFormat} */ (moneyFormats.get(key)).format(n);
}

/** A date-time in the workspace's time zone, e.g. "3 Aug 2026, 14:00". */
/**
 * @param {string | null | undefined} iso
 * @param {string} [timeZone]
 */
export function dateTime(iso, timeZone) {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short', timeZone: zone(timeZone) });
}

/** A calendar day ("YYYY-MM-DD", or a timestamp: its day in the workspace's zone), e.g. "3 Aug 2026". */
/**
 * @param {unknown} value
 * @param {string} [timeZone]
 */
export function day(value, timeZone) {
  const d = calendarDate(value, timeZone);
  return d ? d.toLocaleDateString(locale(), { dateStyle: 'medium', timeZone: 'UTC' }) : '—';
}

/** The month of a calendar day, e.g. "Sep 2026". */
/**
 * @param {unknown} value
 * @param {string} [timeZone]
 */
export function month(value, timeZone) {
  const d = calendarDate(value, timeZone);
  return d ? d.toLocaleDateString(locale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }) : '—';
}

/** "YYYY-MM-DD" of a date or timestamp, the day taken in the workspace's zone. */
/**
 * @param {unknown} value
 * @param {string} [timeZone]
 * @returns {string | null}
 */
export function isoDay(value, timeZone) {
  if (!value) return null;
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return null;
  // en-CA writes dates as YYYY-MM-DD.
  return date.toLocaleDateString('en-CA', { timeZone: zone(timeZone) });
}

/**
 * @param {unknown} value
 * @param {string} [timeZone]
 */
function calendarDate(value, timeZone) {
  const ymd = isoDay(value, timeZone);
  return ymd ? new Date(`${ymd}T00:00:00Z`) : null;
}

/** @param {string} [timeZone] */
function zone(timeZone) {
  if (!timeZone) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

/** Today's date ("YYYY-MM-DD") in the workspace's zone. */
/**
 * @param {string} [timeZone]
 * @returns {string}
 */
export function today(timeZone) {
  return /** @type {string} */ (isoDay(new Date().toISOString(), timeZone));
}

/** The first day of the month of a "YYYY-MM-DD", moved by `delta` months. */
/**
 * @param {string} ymd
 * @param {number} [delta]
 */
export function monthStart(ymd, delta = 0) {
  const [y = 1970, m = 1] = ymd.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 + delta, 1));
  return d.toISOString().slice(0, 10);
}

/** The last day of the month of a "YYYY-MM-DD". */
/** @param {string} ymd */
export function monthEnd(ymd) {
  const [y = 1970, m = 1] = ymd.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/**
 * The short form of a change id: its last 8 hex digits. Change ids are time-ordered (UUIDv7), so their first
 * digits are the same for changes minutes apart; the last ones are random and tell changes apart.
 */
/** @param {string | null | undefined} id */
export function shortChangeId(id) {
  const hex = String(id ?? '').replace(/-/g, '');
  return hex.slice(-8);
}

// The console's nouns are English, so their forms follow English plural rules; the number is the locale's.
const englishPlurals = new Intl.PluralRules('en');

/** A count with its noun, e.g. "1 entry", "3 entries". */
/**
 * @param {number} n
 * @param {string} one
 * @param {string} other
 */
export function count(n, one, other) {
  return `${n.toLocaleString(locale())} ${englishPlurals.select(n) === 'one' ? one : other}`;
}
