/** How a bank's export is written: its delimiter, date order and number format (`expense import` options). */

export type Delimiter = ',' | ';' | '\t';
const CANDIDATES: Delimiter[] = [',', ';', '\t'];

/** The delimiter of the header line: the candidate that occurs most often outside quotes (comma on a tie). */
export function detectDelimiter(firstLine: string): Delimiter {
  const counts = new Map<Delimiter, number>(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch as Delimiter))
      counts.set(ch as Delimiter, counts.get(ch as Delimiter)! + 1);
  }
  let best: Delimiter = ',';
  for (const c of CANDIDATES) if (counts.get(c)! > counts.get(best)!) best = c;
  return best;
}

export function parseDelimiter(value: string): Delimiter {
  const v = value === '\\t' || value.toLowerCase() === 'tab' ? '\t' : value;
  if (!(CANDIDATES as string[]).includes(v)) throw new Error(`--delimiter takes , ; or tab, not "${value}"`);
  return v as Delimiter;
}

export const DATE_FORMATS = ['YYYY-MM-DD', 'DD.MM.YYYY', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD-MM-YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** A date written in `format` as ISO (`2026-03-04`), or undefined when it does not fit the format. */
export function isoDate(raw: string, format: DateFormat): string | undefined {
  const s = raw.trim();
  if (format === 'YYYY-MM-DD') return s;
  const sep = format[2]!;
  const parts = s.split(/\s+/)[0]!.split(sep);
  if (parts.length !== 3 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  const [a, b, y] = parts as [string, string, string];
  const [d, m] = format.startsWith('MM') ? [b, a] : [a, b];
  const year = y.length === 2 ? `20${y}` : y;
  return `${year.padStart(4, '0')}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
}

/**
 * An amount as banks write it, as a plain signed decimal: currency symbols and codes dropped, parentheses
 * meaning negative, thousands separators removed, a decimal comma with `decimalComma`. Undefined when what is
 * left is not a number.
 */
export function normaliseAmount(raw: string, decimalComma: boolean): string | undefined {
  let s = raw.trim().replace(/[\s\u00a0\u202f]/g, '');
  let negative = false;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = true;
    s = paren[1]!;
  }
  s = s.replace(/^([+-]?)[$€£¥₹]/, '$1').replace(/[$€£¥₹]$/, '');
  if (s.startsWith('-')) {
    negative = !negative;
    s = s.slice(1);
  } else if (s.startsWith('+')) s = s.slice(1);
  const [thousands, decimal] = decimalComma ? ['.', ','] : [',', '.'];
  const grouped = new RegExp(`^\\d{1,3}(\\${thousands}\\d{3})+(\\${decimal}\\d*)?$`);
  if (grouped.test(s)) s = s.split(thousands).join('');
  if (decimalComma) {
    if (s.includes('.')) return undefined;
    s = s.replace(',', '.');
  }
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(s)) return undefined;
  return `${negative ? '-' : ''}${s}`;
}

export type DateDetection =
  /** ISO dates, or nothing recognisable: nothing to decide (validation reports what does not parse). */
  | { kind: 'none' }
  /** Exactly one order fits every value. */
  | { kind: 'found'; format: DateFormat }
  /** Both orders fit every value (03/04/2026): the user decides. */
  | { kind: 'ambiguous'; formats: DateFormat[]; example: string };

const NUMERIC_DATE = /^(\d{1,2})([./-])(\d{1,2})\2(\d{2}|\d{4})(?:\s|$)/;

/**
 * The order of numeric dates in a column, from all its values: dots mean DD.MM.YYYY and dashes DD-MM-YYYY;
 * slashes fit MM/DD/YYYY when no first part is above 12 and DD/MM/YYYY when no second part is; when every
 * value fits both, the answer is ambiguous.
 */
export function detectDateFormat(values: string[]): DateDetection {
  const dates = values.map((v) => v.trim()).filter((v) => v !== '');
  const parts = dates.map((v) => NUMERIC_DATE.exec(v));
  if (dates.length === 0 || parts.some((p) => p === null)) return { kind: 'none' };
  const separators = new Set(parts.map((p) => p![2]));
  if (separators.size !== 1) return { kind: 'none' };
  const separator = [...separators][0];
  if (separator === '.') return { kind: 'found', format: 'DD.MM.YYYY' };
  if (separator === '-') return { kind: 'found', format: 'DD-MM-YYYY' };
  const fits = (month: 1 | 3) =>
    parts.every((p) => {
      const m = Number(p![month]);
      const d = Number(p![4 - month]);
      return m >= 1 && m <= 12 && d >= 1 && d <= 31;
    });
  const formats: DateFormat[] = [];
  if (fits(1)) formats.push('MM/DD/YYYY');
  if (fits(3)) formats.push('DD/MM/YYYY');
  if (formats.length === 1) return { kind: 'found', format: formats[0]! };
  if (formats.length === 2) {
    const example = dates.find((d) => {
      const p = NUMERIC_DATE.exec(d)!;
      return p[1] !== p[3];
    });
    // Every day equals its month (01/01, 02/02): both orders give the same dates.
    if (example === undefined) return { kind: 'found', format: 'MM/DD/YYYY' };
    return { kind: 'ambiguous', formats, example };
  }
  return { kind: 'none' };
}
