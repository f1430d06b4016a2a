import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportError, type ImportHooks, type LedgerRow, prepareImport } from '../src/index.js';

// Exports synthesised from random layout parameters (delimiter, decimal mark, thousands separator, date format,
// header language, sign convention, preamble and footer, encoding, a running balance, the order of the rows, a
// pending row),
// with the rows they hold known: the reader gives back exactly those rows, or refuses with a coded error. It never
// books a row with a wrong sign, a wrong amount or a wrong date.

interface Movement {
  day: number;
  cents: number;
  payee: string;
}

type Convention = 'signed' | 'trailing' | 'brackets' | 'crdr' | 'outin' | 'direction' | 'cardPositive';

interface Layout {
  delimiter: ',' | ';' | '\t' | '|';
  decimalComma: boolean;
  thousands: '' | 'mark' | ' ' | "'";
  dateFormat:
    | 'YYYY-MM-DD'
    | 'DD.MM.YYYY'
    | 'DD/MM/YYYY'
    | 'MM/DD/YYYY'
    | 'DD-MM-YYYY'
    | 'YYYYMMDD'
    | 'DD MMM YYYY'
    | 'DD/MM/YY'
    | 'MM/DD/YY';
  language: keyof typeof WORDS;
  convention: Convention;
  balance: boolean;
  newestFirst: boolean;
  preamble: number;
  footer: boolean;
  encoding: 'utf8' | 'utf8-bom' | 'windows-1252' | 'utf-16le';
  header: boolean;
  /** A status column, and a pending row (never to be booked) at the newest end. */
  pending: boolean;
}

const WORDS = {
  en: {
    date: 'Date',
    text: 'Description',
    amount: 'Amount',
    balance: 'Balance',
    out: 'Paid out',
    in: 'Paid in',
    type: 'Type',
    dOut: 'DEBIT',
    dIn: 'CREDIT',
  },
  de: {
    date: 'Buchungstag',
    text: 'Verwendungszweck',
    amount: 'Betrag',
    balance: 'Saldo',
    out: 'Soll',
    in: 'Haben',
    type: 'Soll/Haben',
    dOut: 'S',
    dIn: 'H',
  },
  nl: {
    date: 'Datum',
    text: 'Omschrijving',
    amount: 'Bedrag',
    balance: 'Saldo na mutatie',
    out: 'Af',
    in: 'Bij',
    type: 'Af Bij',
    dOut: 'Af',
    dIn: 'Bij',
  },
  fr: {
    date: "Date d'opération",
    text: 'Libellé',
    amount: 'Montant',
    balance: 'Solde',
    out: 'Débit',
    in: 'Crédit',
    type: 'Sens',
    dOut: 'Débit',
    dIn: 'Crédit',
  },
  es: {
    date: 'Fecha',
    text: 'Concepto',
    amount: 'Importe',
    balance: 'Saldo',
    out: 'Cargo',
    in: 'Abono',
    type: 'Tipo',
    dOut: 'Cargo',
    dIn: 'Abono',
  },
  it: {
    date: 'Data',
    text: 'Descrizione',
    amount: 'Importo',
    balance: 'Saldo',
    out: 'Addebito',
    in: 'Accredito',
    type: 'Tipo',
    dOut: 'Addebito',
    dIn: 'Accredito',
  },
  pt: {
    date: 'Data',
    text: 'Descrição',
    amount: 'Valor',
    balance: 'Saldo',
    out: 'Débito',
    in: 'Crédito',
    type: 'Tipo',
    dOut: 'D',
    dIn: 'C',
  },
  pl: {
    date: 'Data operacji',
    text: 'Opis operacji',
    amount: 'Kwota',
    balance: 'Saldo po operacji',
    out: 'Obciążenia',
    in: 'Uznania',
    type: 'Typ',
    dOut: 'Obciążenie',
    dIn: 'Uznanie',
  },
  sv: {
    date: 'Bokföringsdag',
    text: 'Beskrivning',
    amount: 'Belopp',
    balance: 'Saldo',
    out: 'Uttag',
    in: 'Insättning',
    type: 'Typ',
    dOut: 'Uttag',
    dIn: 'Insättning',
  },
} as const;

const PAYEES = [
  'Corner Bakery',
  'City Grocer',
  'Rent Flat',
  'Acme Salary',
  'Pharmacy Plus',
  'Book Nook',
  'Rail Ticket',
  'Gym Club',
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const iso = (day: number) => new Date(Date.UTC(2026, 0, 1 + day)).toISOString().slice(0, 10);

function writeDate(day: number, format: Layout['dateFormat']): string {
  const [y, m, d] = iso(day).split('-') as [string, string, string];
  switch (format) {
    case 'YYYY-MM-DD':
      return `${y}-${m}-${d}`;
    case 'DD.MM.YYYY':
      return `${d}.${m}.${y}`;
    case 'DD/MM/YYYY':
      return `${d}/${m}/${y}`;
    case 'MM/DD/YYYY':
      return `${m}/${d}/${y}`;
    case 'DD-MM-YYYY':
      return `${d}-${m}-${y}`;
    case 'YYYYMMDD':
      return `${y}${m}${d}`;
    case 'DD MMM YYYY':
      return `${d} ${MONTHS[Number(m) - 1]} ${y}`;
    case 'DD/MM/YY':
      return `${d}/${m}/${y.slice(2)}`;
    case 'MM/DD/YY':
      return `${m}/${d}/${y.slice(2)}`;
  }
}

function number(cents: number, layout: Layout): string {
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100));
  const frac = String(abs % 100).padStart(2, '0');
  const mark = layout.decimalComma ? ',' : '.';
  const sep = layout.thousands === 'mark' ? (layout.decimalComma ? '.' : ',') : layout.thousands;
  const grouped = sep === '' ? whole : whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  return `${grouped}${mark}${frac}`;
}

function signed(cents: number, layout: Layout, convention: Convention): string {
  const n = number(cents, layout);
  if (cents >= 0) return convention === 'crdr' ? `${n} CR` : n;
  switch (convention) {
    case 'trailing':
      return `${n}-`;
    case 'brackets':
      return `(${n})`;
    case 'crdr':
      return `${n} DR`;
    default:
      return `-${n}`;
  }
}

function quote(cell: string, delimiter: string): string {
  return cell.includes(delimiter) || cell.includes('"') ? `"${cell.replaceAll('"', '""')}"` : cell;
}

function encode(text: string, encoding: Layout['encoding']): Uint8Array {
  if (encoding === 'utf-16le') {
    const out = new Uint8Array(2 + text.length * 2);
    out[0] = 0xff;
    out[1] = 0xfe;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out[2 + 2 * i] = c & 0xff;
      out[3 + 2 * i] = c >> 8;
    }
    return out;
  }
  if (encoding === 'windows-1252' && [...text].every((c) => c.charCodeAt(0) <= 0xff))
    return Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
  const utf8 = new TextEncoder().encode(text);
  if (encoding !== 'utf8-bom') return utf8;
  const out = new Uint8Array(utf8.length + 3);
  out.set([0xef, 0xbb, 0xbf]);
  out.set(utf8, 3);
  return out;
}

/** The export's bytes and the rows it must give back (date, signed amount, counterparty), in file order. */
function synthesise(
  movements: Movement[],
  layout: Layout,
): { bytes: Uint8Array; expected: [string, string][] } {
  const w = WORDS[layout.language];
  const byDay = [...movements].sort((a, b) => a.day - b.day);
  let balance = 100_000;
  const rows = byDay.map((m) => {
    balance += m.cents;
    return { ...m, balance };
  });
  if (layout.newestFirst) rows.reverse();
  const conv = layout.convention;
  const header: string[] = [w.date, w.text];
  if (conv === 'outin') header.push(w.out, w.in);
  else header.push(w.amount);
  if (conv === 'direction') header.push(w.type);
  if (layout.balance) header.push(w.balance);
  const pending = layout.pending && layout.header;
  if (pending) header.push('Status');
  const d = layout.delimiter;
  const lines: string[] = [];
  // A card's export says it is a card's (its title, its account block): without that no reader could tell.
  if (conv === 'cardPositive') lines.push(`Credit card statement${d}****4321`);
  for (let i = 0; i < layout.preamble; i++)
    lines.push(i === 0 ? `Account${d}NL91ABNA0417164300` : `Period${d}2026`);
  if (layout.preamble || conv === 'cardPositive') lines.push('');
  if (layout.header) lines.push(header.map((h) => quote(h, d)).join(d));
  const last = byDay.at(-1)!.day;
  const held = { day: last + 1, cents: -1234, payee: 'Pending Shop', balance: undefined, status: 'Pending' };
  const written: {
    day: number;
    cents: number;
    payee: string;
    balance: number | undefined;
    status: string;
  }[] = rows.map((r) => ({ ...r, status: 'Booked' }));
  if (pending) {
    if (layout.newestFirst) written.unshift(held);
    else written.push(held);
  }
  for (const r of written) {
    const cells = [writeDate(r.day, layout.dateFormat), r.payee];
    if (conv === 'outin')
      cells.push(r.cents < 0 ? number(r.cents, layout) : '', r.cents < 0 ? '' : number(r.cents, layout));
    else if (conv === 'direction') cells.push(number(r.cents, layout), r.cents < 0 ? w.dOut : w.dIn);
    else if (conv === 'cardPositive') cells.push(signed(-r.cents, layout, 'signed'));
    else cells.push(signed(r.cents, layout, conv));
    if (layout.balance)
      cells.push(
        r.balance === undefined ? '' : signed(r.balance, layout, conv === 'crdr' ? 'crdr' : 'signed'),
      );
    if (pending) cells.push(r.status);
    lines.push(cells.map((c) => quote(c, d)).join(d));
  }
  if (layout.footer)
    lines.push(['Closing balance', '', signed(balance, layout, 'signed')].map((c) => quote(c, d)).join(d));
  return {
    bytes: encode(`${lines.join('\n')}\n`, layout.encoding),
    expected: rows.map((r) => [iso(r.day), (r.cents / 100).toFixed(2)]),
  };
}

const refuse = (what: string) => new ImportError('refused', what, 1);
const hooks: ImportHooks = {
  chooseDateFormat: async () => {
    throw refuse('dates read two ways');
  },
  workspaceCurrency: async () => 'EUR',
  account: async (named) => named ?? 'generated',
};

const movement = fc.record({
  day: fc.integer({ min: 0, max: 360 }),
  cents: fc.oneof(
    fc.integer({ min: -250_000, max: -1 }),
    fc.integer({ min: -9_000, max: -1 }),
    fc.integer({ min: 1, max: 400_000 }),
  ),
  payee: fc.constantFrom(...PAYEES),
});

const layout = fc.record<Layout>({
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  decimalComma: fc.boolean(),
  thousands: fc.constantFrom('', 'mark', ' ', "'"),
  dateFormat: fc.constantFrom(
    'YYYY-MM-DD',
    'DD.MM.YYYY',
    'DD/MM/YYYY',
    'MM/DD/YYYY',
    'DD-MM-YYYY',
    'YYYYMMDD',
    'DD MMM YYYY',
    'DD/MM/YY',
    'MM/DD/YY',
  ),
  language: fc.constantFrom(...(Object.keys(WORDS) as (keyof typeof WORDS)[])),
  convention: fc.constantFrom('signed', 'trailing', 'brackets', 'crdr', 'outin', 'direction', 'cardPositive'),
  balance: fc.boolean(),
  newestFirst: fc.boolean(),
  preamble: fc.integer({ min: 0, max: 3 }),
  footer: fc.boolean(),
  encoding: fc.constantFrom('utf8', 'utf8-bom', 'windows-1252', 'utf-16le'),
  header: fc.boolean(),
  pending: fc.boolean(),
});

const realistic = layout.filter((l) => !(l.dateFormat.startsWith('MM') && l.decimalComma));

describe('generated exports', () => {
  it('are read back exactly, or refused: never a wrong sign, amount or date', async () => {
    let recovered = 0;
    let refused = 0;
    await fc.assert(
      // Month-first dates are American, and American amounts have a decimal point: no bank writes the two others.
      fc.asyncProperty(
        fc.array(movement, { minLength: 3, maxLength: 25 }),
        realistic,
        async (movements, l) => {
          // Distinct days keep the expected order of the rows the same however a reader sorts a day's rows.
          const seen = new Set<number>();
          const rows = movements.filter((m) => !seen.has(m.day) && seen.add(m.day));
          if (rows.length < 3) return;
          const { bytes, expected } = synthesise(rows, l);
          let got: LedgerRow[];
          try {
            const prepared = await prepareImport({ fileName: 'generated.csv', bytes }, hooks);
            got = prepared.rows as LedgerRow[];
          } catch (error) {
            if (error instanceof ImportError) {
              refused++;
              return;
            }
            throw error;
          }
          expect(got.map((r) => [r.ts.slice(0, 10), r.amount])).toEqual(expected);
          recovered++;
        },
      ),
      { numRuns: 400, seed: 37 },
    );
    // Refusing is allowed, refusing everything is not: most layouts carry the evidence they need.
    expect(recovered).toBeGreaterThan(refused);
  });
});
