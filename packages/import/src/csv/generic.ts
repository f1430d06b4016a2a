import { decideSign, type SignDecision } from '../evidence/signs.js';
import { isCurrencyCode, minorDigits } from './currencies.js';
import { dateIn, detectDateFormat } from './dialect.js';
import { detectDecimalComma } from './looks.js';
import type { CsvRecord } from './parse.js';
import { assignRoles, type ColumnRoles } from './roles.js';
import { BALANCE_LINE, headerKey, notBooked } from './words.js';

/**
 * A table in no bank's layout understood from its content: what each column holds (csv/roles.ts), which rows are
 * not movements (a status that is not booked, `offen` where the date goes, opening and closing balance lines,
 * footers), the decimal mark, and which way the amounts point (evidence/signs.ts). Pure.
 */

export interface Understood {
  roles: ColumnRoles;
  /** The header (for a headerless file, names standing in for it). */
  header: string[];
  /** column name → ledger field, as `--map` gives them. */
  maps: Map<string, string>;
  debit: string | undefined;
  credit: string | undefined;
  decimalComma: boolean;
  skip: (values: string[]) => string | undefined;
  card: boolean;
  /** The currency the file writes its amounts in, when its header, its amounts or its preamble say one. */
  currency: string | undefined;
}

/**
 * A text cell that opens with the statement's opening or closing balance, or its turnover (compared as a header: no
 * case, no accents).
 */
const OPENING = new RegExp(
  `^(?:${[
    '(?:opening|closing|beginning|ending|starting|start|end|previous) balance',
    'balance (?:brought|carried) forward',
    '(?:anfangs|end|schluss)saldo',
    '(?:begin|eind)saldo',
    'saldo (?:inicial|anterior|final|iniziale|finale|precedente|poczatkowe|koncowe)',
    'solde (?:initial|final|precedent)',
    'sold (?:initial|final)',
    'likutis (?:pradziai|pabaigai)',
    '(?:sakuma|beigu) atlikums',
    '(?:alg|lopp)saldo',
    // A statement's turnover lines (Swedbank's Baltic exports): sums, not movements.
    'apyvarta',
    'apgrozijums',
    'kaive',
    '(?:pocetno|zavrsno) stanje',
    '(?:pocatecni|konecny|pociatocny) (?:zustatek|zostatok)',
    '(?:nyito|zaro) egyenleg',
    '(?:входящий|исходящий) остаток',
    'остаток на (?:начало|конец)',
    '(?:вхідний|вихідний) залишок',
    '期初余额',
    '期末余额',
    '前日残高',
    '(?:기초|기말)잔액',
  ].join('|')})(?![\\p{L}])`,
  'u',
);
/** What says a file is a card account's: its title or account block, or a header of the card's own columns. */
const CARD =
  /credit\s*card|charge\s*card|kreditkarte|creditcard|carte\s+de\s+cr[eé]dit|tarjeta\s+de\s+cr[eé]dito|carta\s+di\s+credito|cart[aã]o\s+de\s+cr[eé]dito|karta\s+kredytowa|kredittkort|kreditkort|luottokortti|card\s*(?:statement|account|member)|cardmember/i;

export function understand(header: string[], records: CsvRecord[], context: string): Understood | undefined {
  const { roles, names } = assignRoles(header, records);
  const head = names ?? header;
  if (roles.date === undefined || (roles.amount === undefined && roles.out === undefined)) return undefined;
  if (roles.parties && !roles.payee) {
    // Payer, payee and merchant in columns of their own, each filled on some rows: one counterparty column.
    const parties = roles.parties;
    const at = head.length;
    head.push(`Counterparty (${parties.map((i) => head[i]).join(' / ')})`);
    for (const r of records) {
      const first = parties.map((i) => (r.values[i] ?? '').trim()).find((v) => v !== '') ?? '';
      r.values.splice(at, 0, first);
    }
    roles.payee = at;
  }
  const maps = new Map<string, string>();
  const set = (index: number | undefined, field: string) => {
    if (index !== undefined && head[index]) maps.set(head[index]!, field);
  };
  set(roles.date, 'ts');
  set(roles.amount, 'amount');
  // A currency the money columns' headers name (`Сума в валюті картки (UAH)`) is the amounts'; a currency column
  // beside them is then another amount's (the operation's, on a card statement).
  const moneyHeaders = [roles.amount, roles.out, roles.in]
    .filter((i): i is number => i !== undefined)
    .map((i) => head[i] ?? '');
  if (currencyOf(moneyHeaders, [], '') === undefined) set(roles.currency, 'currency');
  set(roles.category, 'category');
  if (roles.payee !== undefined) {
    set(roles.payee, 'counterparty');
    set(roles.description, 'note');
  } else set(roles.description, 'counterparty');
  const money = [roles.amount, roles.out, roles.in, roles.balance].filter(
    (i): i is number => i !== undefined,
  );
  const currency = currencyOf(
    money.map((i) => head[i] ?? ''),
    records.slice(0, 200).flatMap((r) => money.map((i) => r.values[i] ?? '')),
    context,
  );
  // The amounts' currency, said by the file or its currency column: how many decimals its amounts have.
  const columnCurrency =
    roles.currency === undefined ? undefined : records[0]?.values[roles.currency]?.trim().toUpperCase();
  const decimalComma =
    detectDecimalComma(
      records.slice(0, 500).flatMap((r) => money.map((i) => r.values[i] ?? '')),
      { minorDigits: minorDigits(currency ?? columnCurrency ?? '') },
    ) === true;
  const texts = [roles.payee, roles.description].filter((i): i is number => i !== undefined);
  // A status column holds a few values: each is judged once.
  const statuses = new Map<string, string | undefined>();
  const statusOf = (value: string) => {
    let why = statuses.get(value);
    if (why === undefined && !statuses.has(value)) {
      why = notBooked(value);
      statuses.set(value, why);
    }
    return why;
  };
  // A first or last row with a date and money and nothing else, in a table whose rows say what they are: the
  // balance a statement opens or closes with (LCL ends its headerless file so).
  const bare = (values: string[]) =>
    values.every((v, i) => i === roles.date || money.includes(i) || v.trim() === '');
  const edges = new Set([records[0]?.values, records.at(-1)?.values]);
  const worded = records.length >= 3 && records.filter((r) => !bare(r.values)).length >= records.length - 2;
  const judge = (values: string[]): string | undefined => {
    if (roles.status !== undefined) {
      const why = statusOf(values[roles.status] ?? '');
      if (why) return `${head[roles.status]} is ${why}`;
    }
    const date = values[roles.date!] ?? '';
    const dated = /\d/.test(date);
    const pending = dated ? undefined : statusOf(date);
    if (pending) return `${head[roles.date!]} is ${pending}`;
    if (texts.some((i) => OPENING.test(headerKey(values[i] ?? '')))) return 'a balance line';
    if (worded && edges.has(values) && bare(values)) return 'a balance line';
    if (!dated && BALANCE_LINE.test(values.map(headerKey).join(' '))) return 'a balance line';
    // No amount at all (a card hold whose sum is in a column of its own, a line of text): nothing to book.
    const amounts = [roles.amount, roles.out, roles.in].filter((i): i is number => i !== undefined);
    if (amounts.every((i) => (values[i] ?? '').trim() === '')) return 'not a movement';
    return undefined;
  };
  // Each row is judged once, for the evidence of signs and for the rows alike.
  const judged = new WeakMap<string[], string | null>();
  const skip = (values: string[]): string | undefined => {
    let why = judged.get(values);
    if (why === undefined) {
      why = judge(values) ?? null;
      judged.set(values, why);
    }
    return why ?? undefined;
  };
  const card = CARD.test([...head, context].join('\n'));
  return {
    roles,
    header: head,
    maps,
    debit: roles.out === undefined ? undefined : head[roles.out],
    credit: roles.in === undefined ? undefined : head[roles.in],
    decimalComma,
    skip,
    card,
    currency,
  };
}

/** Signs of one currency each (¥ and $ are several currencies' and tell none). */
const UNIT_SIGNS: Record<string, string> = {
  '₩': 'KRW',
  '₽': 'RUB',
  '₴': 'UAH',
  '₪': 'ILS',
  '₫': 'VND',
  '฿': 'THB',
  '₱': 'PHP',
  '₦': 'NGN',
  '₹': 'INR',
};
/** What an amount cell writes its currency with: the signs above, and units after the number (540円, 12,000원). */
const UNIT_CURRENCIES: Record<string, string> = {
  ...UNIT_SIGNS,
  円: 'JPY',
  元: 'CNY',
  원: 'KRW',
  руб: 'RUB',
  р: 'RUB',
  грн: 'UAH',
};
const UNIT_OF_AMOUNT = /^[+-]?([₩₽₴₪₫฿₱₦₹])\s*[\d(]|\d\s*([₩₽₴₪₫฿₱₦₹円元원]|руб\.?|р\.|грн\.?)$/i;

const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  zł: 'PLN',
  euros: 'EUR',
  euro: 'EUR',
  '₺': 'TRY',
  ...UNIT_SIGNS,
  // A unit in a header's brackets: 金額(円), 金额(元), 거래금액(원), Сумма (руб.).
  '(円)': 'JPY',
  '(元)': 'CNY',
  '(원)': 'KRW',
  '(руб': 'RUB',
  '(грн': 'UAH',
};

/** A currency the money columns' headers (`Amount (GBP)`, `Umsatz in EUR`, `Débit euros`), amounts or preamble name. */
function currencyOf(headers: string[], cells: string[], context: string): string | undefined {
  const found = new Set<string>();
  for (const h of headers) {
    // `Amount (GBP)`, `Umsatz in EUR`, `Belastung CHF`, `CAD$`, `EUR Betrag`.
    const code = /\(([A-Z]{3})\)|\bin ([A-Z]{3})\b|(?:^|[\s_-])([A-Z]{3})[$€£]?$|^([A-Z]{3})[\s_-]/.exec(
      h.trim(),
    );
    const named = code && (code[1] ?? code[2] ?? code[3] ?? code[4]);
    if (named && isCurrencyCode(named)) found.add(named);
    for (const [sym, c] of Object.entries(SYMBOLS)) if (h.toLowerCase().includes(sym)) found.add(c);
  }
  if (found.size === 0)
    for (const c of cells) {
      const code = /(?:^|[\d\s])([A-Z]{3})$|^([A-Z]{3})[\s\d+-]/.exec(c.trim());
      if (code && isCurrencyCode(code[1] ?? code[2]!)) found.add(code[1] ?? code[2]!);
      else if (c.includes('€')) found.add('EUR');
      else if (c.includes('£')) found.add('GBP');
      else if (/[\d\s](?:TL|₺)$|^₺/.test(c)) found.add('TRY');
      else {
        const unit = UNIT_OF_AMOUNT.exec(c.trim());
        if (unit) found.add(UNIT_CURRENCIES[(unit[1] ?? unit[2])!.toLowerCase().replace(/\.$/, '')]!);
      }
      if (found.size > 1) return undefined;
    }
  if (found.size === 0) {
    const words = new Set(context.match(/\b[A-Z]{3}\b/g) ?? []);
    for (const w of words) if (isCurrencyCode(w)) found.add(w);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** Which way the understood table's amounts point (see evidence/signs.ts). */
export function signOfTable(
  u: Understood,
  records: CsvRecord[],
  charges: 'positive' | 'negative' | undefined,
): SignDecision {
  // The order of the rows needs only the first and the last dates, read in the format the ends of the file fit.
  const all = records.map((r) => r.values[u.roles.date!] ?? '');
  const dates = all.length > 200 ? [...all.slice(0, 100), ...all.slice(-100)] : all;
  const detected = detectDateFormat(dates);
  const iso = dates
    .map((d) =>
      detected.kind === 'found' || detected.kind === 'ambiguous'
        ? dateIn(d, detected.kind === 'found' ? detected.format : detected.formats[0]!)
        : dateIn(d, 'YYYY-MM-DD'),
    )
    .filter((d): d is string => d !== undefined);
  const first = iso[0];
  const last = iso.at(-1);
  const order = first === undefined || last === undefined || first === last ? 0 : first < last ? 1 : -1;
  return decideSign({
    records,
    roles: u.roles,
    decimalComma: u.decimalComma,
    skipped: (r) => u.skip(r.values) !== undefined,
    card: u.card,
    charges,
    order,
  });
}
