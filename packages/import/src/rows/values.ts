/** Parsers for single CSV values; each returns the value to send, or a problem in words. */
export type Parsed = { ok: true; value: string } | { ok: false; problem: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?$/i;

/** A timestamp followed by the abbreviation of its time zone. */
const ZONED = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)\s*([A-Z]{2,5})$/i;
const ZONES: Record<string, string> = {
  UTC: 'Z',
  GMT: 'Z',
  Z: 'Z',
  EST: '-05:00',
  EDT: '-04:00',
  CST: '-06:00',
  CDT: '-05:00',
  MST: '-07:00',
  MDT: '-06:00',
  PST: '-08:00',
  PDT: '-07:00',
  AKST: '-09:00',
  AKDT: '-08:00',
  HST: '-10:00',
  BST: '+01:00',
  CET: '+01:00',
  CEST: '+02:00',
  EET: '+02:00',
  EEST: '+03:00',
  AEST: '+10:00',
  AEDT: '+11:00',
};

function validCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d && y >= 1;
}

/**
 * An ISO 8601 date (`2026-03-01`) or timestamp (`2026-03-01T09:30:00Z`, `2026-03-01 09:30`, with or without
 * an offset). A value without an offset is read by the server in the workspace session's time zone.
 */
export function parseTimestamp(raw: string): Parsed {
  const s = raw.trim();
  const bad = {
    ok: false as const,
    problem: `"${raw}" is not an ISO date (2026-03-01) or timestamp (2026-03-01T09:30:00Z)`,
  };
  const date = DATE.exec(s);
  if (date) return validCalendarDate(+date[1]!, +date[2]!, +date[3]!) ? { ok: true, value: s } : bad;
  const zoned = ZONED.exec(s);
  if (zoned) {
    // `2026-03-16 18:22:10 EDT` (Cash App, PayPal): a zone named by its abbreviation is its offset; another is
    // read as the local time it is written in.
    const offset = ZONES[zoned[2]!.toUpperCase()];
    return parseTimestamp(offset === undefined ? zoned[1]! : `${zoned[1]!}${offset}`);
  }
  const ts = TIMESTAMP.exec(s);
  if (!ts) return bad;
  const [, y, mo, d, h, mi, sec = '0', offsetHours = '0', offsetMinutes = '0'] = ts;
  if (!validCalendarDate(+y!, +mo!, +d!) || +h! > 23 || +mi! > 59 || +sec > 59) return bad;
  if (+offsetHours > 15 || +offsetMinutes > 59) return bad;
  return { ok: true, value: s.replace(' ', 'T') };
}

const AMOUNT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A signed decimal with a dot as the decimal separator; kept as text so no precision is lost. */
export function parseAmount(raw: string): Parsed {
  const s = raw.trim();
  if (!AMOUNT.test(s)) {
    return {
      ok: false,
      problem: `"${raw}" is not a number (write amounts like -12.50: a dot for decimals, no thousands separators or currency signs)`,
    };
  }
  const unsigned = s.replace(/^[+-]/, '');
  const value =
    (s.startsWith('-') ? '-' : '') +
    (unsigned.startsWith('.') ? `0${unsigned}` : unsigned).replace(/\.$/, '');
  return { ok: true, value };
}

export function parseCurrency(raw: string): Parsed {
  const s = raw.trim();
  return /^[A-Za-z]{3}$/.test(s)
    ? { ok: true, value: s.toUpperCase() }
    : { ok: false, problem: `"${raw}" is not a three-letter ISO 4217 currency code` };
}

/** The sign of a decimal string: -1, 0 or 1. */
export function signOf(amount: string): -1 | 0 | 1 {
  if (/^-?0*\.?0*$/.test(amount)) return 0;
  return amount.startsWith('-') ? -1 : 1;
}
