/** How a bank's export is written: its delimiter, date order and number format (`expense import` options). */

export type Delimiter = ',' | ';' | '\t' | '|';
const CANDIDATES: Delimiter[] = [',', ';', '\t', '|'];

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
  const v =
    value === '\\t' || value.toLowerCase() === 'tab' ? '\t' : value.toLowerCase() === 'pipe' ? '|' : value;
  if (!(CANDIDATES as string[]).includes(v))
    throw new Error(`--delimiter takes , ; | or tab, not "${value}"`);
  return v as Delimiter;
}

export const DATE_FORMATS = [
  'YYYY-MM-DD',
  'DD.MM.YYYY',
  'DD/MM/YYYY',
  'MM/DD/YYYY',
  'DD-MM-YYYY',
  'MM-DD-YYYY',
  'YYYYMMDD',
  'YYYY/MM/DD',
  'YYYY.MM.DD',
  'DD MMM YYYY',
  'MMM DD YYYY',
] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** Month names and their abbreviations in the languages of the banks read here (accents and case ignored). */
const MONTHS: readonly (readonly string[])[] = [
  [
    'jan',
    'january',
    'januar',
    'januari',
    'janvier',
    'janv',
    'enero',
    'ene',
    'gennaio',
    'gen',
    'janeiro',
    'stycznia',
    'sty',
    'tammikuu',
    'tammi',
    'jänner',
    'jaen',
  ],
  [
    'feb',
    'february',
    'februar',
    'februari',
    'fevrier',
    'fev',
    'févr',
    'febrero',
    'febbraio',
    'fevereiro',
    'fev',
    'lutego',
    'lut',
    'helmikuu',
    'helmi',
  ],
  [
    'mar',
    'march',
    'marz',
    'maerz',
    'maart',
    'mrt',
    'mars',
    'marzo',
    'marco',
    'março',
    'marca',
    'maalis',
    'maaliskuu',
    'mär',
  ],
  ['apr', 'april', 'avril', 'avr', 'abril', 'abr', 'aprile', 'kwietnia', 'kwi', 'huhtikuu', 'huhti'],
  ['may', 'mai', 'mei', 'mayo', 'maggio', 'mag', 'maio', 'maja', 'maj', 'toukokuu', 'touko'],
  ['jun', 'june', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho', 'czerwca', 'cze', 'kesäkuu', 'kesä'],
  [
    'jul',
    'july',
    'juli',
    'juillet',
    'juil',
    'julio',
    'luglio',
    'lug',
    'julho',
    'lipca',
    'lip',
    'heinäkuu',
    'heinä',
  ],
  ['aug', 'august', 'augustus', 'aout', 'août', 'agosto', 'ago', 'sierpnia', 'sie', 'elokuu', 'elo'],
  [
    'sep',
    'sept',
    'september',
    'septembre',
    'septiembre',
    'settembre',
    'set',
    'setembro',
    'wrzesnia',
    'wrz',
    'syyskuu',
    'syys',
  ],
  [
    'oct',
    'october',
    'oktober',
    'okt',
    'octobre',
    'octubre',
    'ottobre',
    'ott',
    'outubro',
    'out',
    'pazdziernika',
    'paz',
    'lokakuu',
    'loka',
  ],
  ['nov', 'november', 'novembre', 'noviembre', 'novembro', 'listopada', 'lis', 'marraskuu', 'marras'],
  [
    'dec',
    'december',
    'dezember',
    'dez',
    'decembre',
    'déc',
    'diciembre',
    'dic',
    'dicembre',
    'dezembro',
    'grudnia',
    'gru',
    'joulukuu',
    'joulu',
  ],
];
const plain = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
const MONTH_OF = new Map<string, number>();
MONTHS.forEach((names, i) => {
  for (const n of names) if (!MONTH_OF.has(plain(n))) MONTH_OF.set(plain(n), i + 1);
});
export const monthNamed = (word: string): number | undefined => MONTH_OF.get(plain(word));

const pad = (n: string | number, w = 2) => String(n).padStart(w, '0');
const yearOf = (y: string) => (y.length === 2 ? `20${y}` : y);
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function valid(y: string, m: string | number, d: string | number): string | undefined {
  const [written, M, D] = [Number(y), Number(m), Number(d)];
  // A Thai date counts the Buddhist era (2569 is 2026).
  const Y = written >= 2400 && written < 2700 ? written - 543 : written;
  if (!(Y >= 1900 && Y < 2200) || !(M >= 1 && M <= 12) || !(D >= 1 && D <= DAYS[M - 1]!)) return undefined;
  if (M === 2 && D === 29 && (Y % 4 !== 0 || (Y % 100 === 0 && Y % 400 !== 0))) return undefined;
  return `${pad(Y, 4)}-${pad(M)}-${pad(D)}`;
}

/** A date written in `format` as ISO (`2026-03-04`), or undefined when it does not fit the format. */
export function isoDate(raw: string, format: DateFormat): string | undefined {
  const s = raw.trim();
  if (format === 'YYYY-MM-DD') return s;
  if (format === 'YYYYMMDD') {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
    return m ? valid(m[1]!, m[2]!, m[3]!) : undefined;
  }
  if (format === 'YYYY/MM/DD' || format === 'YYYY.MM.DD') {
    // Also as Japanese, Chinese and Korean write it: 2026年3月5日, 2026년 3월 5일.
    const m = /^(\d{4})\s*[/.年년]\s*(\d{1,2})\s*[/.月월]\s*(\d{1,2})(?:\s*[日일])?(?:\s|$)/.exec(s);
    return m ? valid(m[1]!, m[2]!, m[3]!) : undefined;
  }
  if (format === 'DD MMM YYYY') {
    const m = /^(\d{1,2})[\s./-]+([^\d\s./,-]+)\.?[\s./-]+(\d{4}|\d{2})(?:\s|$)/.exec(s);
    const month = m ? monthNamed(m[2]!) : undefined;
    return m && month ? valid(yearOf(m[3]!), month, m[1]!) : undefined;
  }
  if (format === 'MMM DD YYYY') {
    const m = /^([^\d\s./,-]+)\.?[\s./-]+(\d{1,2}),?[\s./-]+(\d{4}|\d{2})(?:\s|$)/.exec(s);
    const month = m ? monthNamed(m[1]!) : undefined;
    return m && month ? valid(yearOf(m[3]!), month, m[2]!) : undefined;
  }
  const sep = format[2]!;
  const parts = s
    .split(/\s+/)[0]!
    .replace(/(?<=\d)\.$/, '')
    .split(sep);
  if (parts.length !== 3 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  const [a, b, y] = parts as [string, string, string];
  const [d, m] = format.startsWith('MM') ? [b, a] : [a, b];
  return valid(y.length === 2 ? `20${y}` : y, m, d);
}

/**
 * An amount as banks write it, as a plain signed decimal: currency symbols and codes dropped, parentheses
 * meaning negative, thousands separators removed, a decimal comma with `decimalComma`. Undefined when what is
 * left is not a number.
 */
const GROUPED_DOT = /^\d{1,3}(,\d{3})+(\.\d*)?$/;
const GROUPED_COMMA = /^\d{1,3}(\.\d{3})+(,\d*)?$/;
const PLAIN_DOT = /^-?\d+(?:\.\d+)?$/;
const PLAIN_COMMA = /^-?\d+(?:,\d+)?$/;

/** A currency's sign or unit before or after the number: $ € £ ¥ ₹ ₩ ₽ ₴ ₺ ₪ ₫ ฿ ₱ ₦, 円 元 원, руб., грн. */
const CURRENCY_SIGNS = '[$€£¥￥₹₩₽₴₺₪₫฿₱₦]';
const CURRENCY_BEFORE = new RegExp(`^([+-]?)${CURRENCY_SIGNS}`);
const CURRENCY_AFTER = new RegExp(`(?:${CURRENCY_SIGNS}|[円元원]|руб\\.?|р\\.|грн\\.?)$`, 'i');

export function normaliseAmount(raw: string, decimalComma: boolean, codes = false): string | undefined {
  // Most cells are plain (`-12.50`, `-12,50`): no symbol, mark or separator to take off.
  if (decimalComma ? PLAIN_COMMA.test(raw) : PLAIN_DOT.test(raw))
    return decimalComma ? raw.replace(',', '.') : raw;
  let s = raw
    .trim()
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(/[\u2212\u2013]/g, '-');
  let negative = false;
  // With `codes`, a currency code on either side (`12,34 EUR`, `PLN -5`, `kr 5`), as bank exports write it (a file
  // written for the ledger keeps its amounts plain); then CR/DR marks: a debit is money out, a credit money in.
  if (codes)
    s = s
      .replace(/^([+-]?)(?:[A-Z]{3}|kr|zł|zl|TL|₺)(?=[\d(+-])/i, '$1')
      .replace(/(?<=[\d)])(?:[A-Z]{3}|kr|zł|zl|TL|₺)$/i, '');
  const mark = /^(CR|DR|Cr|Dr|D|C)(?=[\d(])|(?<=[\d)])(CR|DR|Cr|Dr)$/.exec(s);
  if (mark) {
    if ((mark[1] ?? mark[2])!.toUpperCase().startsWith('D')) negative = true;
    s = s.replace(mark[0], '');
  }
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = !negative;
    s = paren[1]!;
  }
  s = s.replace(CURRENCY_BEFORE, '$1').replace(CURRENCY_AFTER, '');
  if (/^[^-]*\d-$/.test(s)) {
    negative = !negative;
    s = s.slice(0, -1);
  } else if (/^[^+]*\d\+$/.test(s)) s = s.slice(0, -1);
  if (s.startsWith('-')) {
    negative = !negative;
    s = s.slice(1);
  } else if (s.startsWith('+')) s = s.slice(1);
  s = s.replace(/(?<=\d)['’](?=\d{3})/g, '');
  const thousands = decimalComma ? '.' : ',';
  if ((decimalComma ? GROUPED_COMMA : GROUPED_DOT).test(s)) s = s.split(thousands).join('');
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

/** A value in `format` as a valid ISO date, or undefined. */
export function dateIn(raw: string, format: DateFormat): string | undefined {
  const s = raw.trim();
  if (format === 'YYYY-MM-DD') {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T\s]|$)/.exec(s);
    return m ? valid(m[1]!, m[2]!, m[3]!) : undefined;
  }
  const numeric = NUMERIC[format];
  if (numeric) {
    const m = numeric.exec(s);
    if (!m) return undefined;
    const [a, b, y] = [m[1]!, m[2]!, m[3]!];
    return format.startsWith('MM') ? valid(yearOf(y), a, b) : valid(yearOf(y), b, a);
  }
  const iso = isoDate(s, format);
  const m = iso && /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? valid(m[1]!, m[2]!, m[3]!) : undefined;
}

/** Day, month (or month, day) and year of the numeric formats, read by one expression each. */
const NUMERIC: Partial<Record<DateFormat, RegExp>> = {
  // Croatian, Serbian and Slovene dates end with a dot too (02.03.2026.).
  'DD.MM.YYYY': /^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})\.?(?:\s|$)/,
  'DD/MM/YYYY': /^(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?:\s|$)/,
  'MM/DD/YYYY': /^(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?:\s|$)/,
  'DD-MM-YYYY': /^(\d{1,2})-(\d{1,2})-(\d{4}|\d{2})(?:\s|$)/,
  'MM-DD-YYYY': /^(\d{1,2})-(\d{1,2})-(\d{4}|\d{2})(?:\s|$)/,
};

/**
 * The format of a column of dates: each format is tried on every value that has a digit in it (a pending row's
 * `offen`, a footer's words are not dates and say nothing), and the one that fits them all is kept. ISO needs
 * nothing (`none`); when day-first and month-first both fit every value, the answer is ambiguous unless no value
 * tells them apart (every day equals its month).
 */
export function detectDateFormat(values: string[]): DateDetection {
  const dates = values.map((v) => v.trim()).filter((v) => /\d/.test(v));
  if (dates.length === 0) return { kind: 'none' };
  // The formats that fit the first values, then those of them that fit every value.
  const head = dates.slice(0, 50);
  const fits = DATE_FORMATS.filter((f) => head.every((d) => dateIn(d, f) !== undefined)).filter((f) =>
    dates.every((d, i) => i < head.length || dateIn(d, f) !== undefined),
  );
  if (fits.length === 0 || fits.includes('YYYY-MM-DD')) return { kind: 'none' };
  if (fits.length === 1) return { kind: 'found', format: fits[0]! };
  const differ = (a: DateFormat, b: DateFormat) => dates.find((d) => dateIn(d, a) !== dateIn(d, b));
  const [first, ...rest] = fits;
  const other = rest.find((f) => differ(first!, f) !== undefined);
  if (other === undefined) return { kind: 'found', format: first! };
  const formats = [first!, other].sort((a, b) => Number(b.startsWith('MM')) - Number(a.startsWith('MM')));
  return { kind: 'ambiguous', formats, example: differ(first!, other)! };
}
