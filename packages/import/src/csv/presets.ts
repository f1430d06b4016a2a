import type { LedgerField } from '../rows/fields.js';
import type { DateFormat, Delimiter } from './dialect.js';

/** A column whose value decides whether a row is a booked movement (pending, authorisation, reverted rows are not). */
export interface RowFilter {
  column: string;
  values: readonly string[];
}

/**
 * How a bank's export is laid out (`expense import --preset <name>`, or recognised from the file): the columns in
 * the bank's words and the file's dialect. Every field lists the headers the bank has used for it; the first present
 * in the file is taken. Options given on the command line win over the preset's. Pure data: the browser can use it.
 */
export interface Preset {
  /** The bank and the account kind, as said on stderr: `Recognised: Chase checking (preset chase-checking)`. */
  title: string;
  description: string;
  /** Header names that together identify the layout (any one list, all its names): how a file is recognised. */
  signatures?: readonly (readonly string[])[];
  /** A layout without a header row: its columns by position (the names stand in for a header). */
  headerless?: { columns: readonly string[]; marker?: { index: number; value: string } };
  columns: Partial<Record<LedgerField, readonly string[]>>;
  /** Separate money-out and money-in columns instead of a signed amount. */
  debit?: readonly string[];
  credit?: readonly string[];
  /** A fee column: booked as an entry of its own (category fees), so the balance equals the bank's. */
  fee?: { columns: readonly string[] /** how a fee charged is written */; charged: 'positive' | 'negative' };
  delimiter?: Delimiter;
  dateFormat?: DateFormat;
  /** When the order of a date is ambiguous (03/04/2026), the day comes first; `monthFirst` the month. */
  dayFirst?: boolean;
  monthFirst?: boolean;
  decimalComma?: boolean;
  currency?: string;
  /** The file shows charges as positive numbers (a card statement). */
  invertSign?: boolean;
  /** Rows without an amount (a "beginning balance" line) carry no movement and are left out. */
  skipWithoutAmount?: boolean;
  /** Only rows whose columns hold one of these values are booked movements; the others are skipped and counted. */
  keep?: readonly RowFilter[];
  /** Rows whose columns hold one of these values are not movements of the balance. */
  drop?: readonly RowFilter[];
}

const EU_DATE_NAMES = ['Buchungsdatum', 'Buchungstag', 'Datum', 'Date', 'Fecha', 'Data', 'Datum transactie'];
const US_DATE_NAMES = ['Posting Date', 'Posted Date', 'Transaction Date', 'Trans. Date', 'Date'];

export const PRESETS = {
  'chase-checking': {
    title: 'Chase checking',
    description:
      'Chase checking/savings CSV (Details, Posting Date, ...; every data row ends with a comma); MM/DD/YYYY, USD',
    signatures: [['Details', 'Posting Date', 'Description', 'Amount', 'Type', 'Balance']],
    columns: { ts: ['Posting Date'], amount: ['Amount'], counterparty: ['Description'] },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
  },
  'chase-card': {
    title: 'Chase credit card',
    description:
      'Chase card CSV (Transaction Date, Post Date, ..., Memo); purchases negative; MM/DD/YYYY, USD',
    signatures: [['Transaction Date', 'Post Date', 'Description', 'Category', 'Type', 'Amount']],
    columns: {
      ts: ['Transaction Date'],
      amount: ['Amount'],
      counterparty: ['Description'],
      category: ['Category'],
      note: ['Memo'],
    },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
  },
  'wells-fargo': {
    title: 'Wells Fargo',
    description: 'Wells Fargo CSV: no header row; date, amount, "*", check number, description; USD',
    headerless: {
      columns: ['Date', 'Amount', 'Flag', 'Check Number', 'Description'],
      marker: { index: 2, value: '*' },
    },
    columns: { ts: ['Date'], amount: ['Amount'], counterparty: ['Description'] },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
  },
  'capital-one': {
    title: 'Capital One card',
    description: 'Capital One card CSV: Debit (money out) and Credit (money in) columns; YYYY-MM-DD, USD',
    signatures: [
      ['Transaction Date', 'Posted Date', 'Card No.', 'Description', 'Category', 'Debit', 'Credit'],
    ],
    columns: { ts: ['Transaction Date'], counterparty: ['Description'], category: ['Category'] },
    debit: ['Debit'],
    credit: ['Credit'],
    currency: 'USD',
  },
  bofa: {
    title: 'Bank of America',
    description: 'Bank of America checking CSV: a summary above the table, a "Beginning balance" row; USD',
    signatures: [['Date', 'Description', 'Amount', 'Running Bal.']],
    columns: { ts: ['Date'], amount: ['Amount'], counterparty: ['Description'] },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
    skipWithoutAmount: true,
  },
  amex: {
    title: 'American Express',
    description: 'American Express activity CSV: charges are positive, payments negative; MM/DD/YYYY, USD',
    signatures: [['Date', 'Description', 'Card Member', 'Account #', 'Amount']],
    columns: {
      ts: ['Date'],
      amount: ['Amount'],
      counterparty: ['Description'],
      category: ['Category'],
    },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
    invertSign: true,
  },
  barclays: {
    title: 'Barclays (UK)',
    description: 'Barclays UK CSV (Number, Date, Account, Amount, Subcategory, Memo); DD/MM/YYYY, GBP',
    signatures: [['Number', 'Date', 'Account', 'Amount', 'Subcategory', 'Memo']],
    columns: { ts: ['Date'], amount: ['Amount'], counterparty: ['Memo'], category: ['Subcategory'] },
    dateFormat: 'DD/MM/YYYY',
    currency: 'GBP',
  },
  monzo: {
    title: 'Monzo',
    description: 'Monzo CSV: a Currency column, DD/MM/YYYY',
    signatures: [
      ['Transaction ID', 'Date', 'Time', 'Type', 'Name', 'Emoji', 'Category', 'Amount', 'Currency'],
    ],
    columns: {
      ts: ['Date'],
      amount: ['Amount'],
      currency: ['Currency'],
      counterparty: ['Name'],
      category: ['Category'],
      note: ['Notes and #tags'],
      external_id: ['Transaction ID'],
    },
    dateFormat: 'DD/MM/YYYY',
  },
  revolut: {
    title: 'Revolut',
    description: 'Revolut statement CSV: only COMPLETED rows; the Fee column is booked as entries of its own',
    signatures: [
      ['Type', 'Product', 'Started Date', 'Completed Date', 'Description', 'Amount', 'Fee', 'State'],
    ],
    columns: {
      ts: ['Started Date', 'Completed Date'],
      amount: ['Amount'],
      currency: ['Currency'],
      counterparty: ['Description'],
    },
    fee: { columns: ['Fee'], charged: 'positive' },
    keep: [{ column: 'State', values: ['COMPLETED'] }],
  },
  n26: {
    title: 'N26',
    description: 'N26 CSV (Booking Date or Date, Partner Name or Payee, Amount (EUR)); EUR',
    signatures: [
      ['Booking Date', 'Value Date', 'Partner Name', 'Amount (EUR)'],
      ['Date', 'Payee', 'Account number', 'Transaction type', 'Amount (EUR)'],
    ],
    columns: {
      ts: ['Booking Date', 'Date'],
      amount: ['Amount (EUR)'],
      counterparty: ['Partner Name', 'Payee'],
      note: ['Payment Reference', 'Payment reference'],
    },
    currency: 'EUR',
  },
  'ing-de': {
    title: 'ING Germany',
    description: 'ING Deutschland CSV (Latin-1): a 14-line preamble, ";", Buchung DD.MM.YYYY, -1.234,56',
    signatures: [
      ['Buchung', 'Auftraggeber/Empfänger', 'Buchungstext', 'Verwendungszweck', 'Betrag', 'Währung'],
    ],
    columns: {
      ts: ['Buchung'],
      amount: ['Betrag'],
      currency: ['Währung'],
      counterparty: ['Auftraggeber/Empfänger'],
      note: ['Verwendungszweck'],
    },
    delimiter: ';',
    dateFormat: 'DD.MM.YYYY',
    decimalComma: true,
    currency: 'EUR',
  },
  sparkasse: {
    title: 'Sparkasse',
    description: 'Sparkasse CSV-CAMT (Latin-1): ";", DD.MM.YY, -1.234,56; rows "Umsatz vorgemerkt" skipped',
    signatures: [
      ['Auftragskonto', 'Buchungstag', 'Valutadatum', 'Buchungstext', 'Verwendungszweck', 'Betrag'],
    ],
    columns: {
      ts: ['Buchungstag'],
      amount: ['Betrag'],
      currency: ['Waehrung', 'Währung'],
      counterparty: ['Beguenstigter/Zahlungspflichtiger', 'Begünstigter/Zahlungspflichtiger'],
      note: ['Verwendungszweck'],
    },
    delimiter: ';',
    dateFormat: 'DD.MM.YYYY',
    decimalComma: true,
    currency: 'EUR',
    drop: [{ column: 'Info', values: ['Umsatz vorgemerkt'] }],
  },
  dkb: {
    title: 'DKB',
    description:
      'DKB Girokonto/Tagesgeld CSV, new layout (UTF-8, Status) or old (Latin-1): a preamble, ";", -1.234,56, EUR; "Vorgemerkt" rows skipped; the counterparty is the side of Zahlungspflichtige*r / Zahlungsempfänger*in that is not the holder',
    signatures: [
      ['Buchungsdatum', 'Wertstellung', 'Status', 'Verwendungszweck', 'Betrag (€)'],
      ['Buchungsdatum', 'Wertstellung', 'Status', 'Verwendungszweck', 'Betrag (EUR)'],
      ['Buchungstag', 'Wertstellung', 'Buchungstext', 'Auftraggeber / Begünstigter', 'Betrag (EUR)'],
    ],
    columns: {
      ts: ['Buchungsdatum', 'Buchungstag'],
      amount: ['Betrag (€)', 'Betrag (EUR)'],
      // The new layout's payer and payee columns are read by csv/parties.ts (the side that is not the holder); this
      // column stands in only when the file does not say who the holder is (a single row).
      counterparty: ['Zahlungsempfänger*in', 'Auftraggeber / Begünstigter'],
      note: ['Verwendungszweck'],
    },
    delimiter: ';',
    dateFormat: 'DD.MM.YYYY',
    decimalComma: true,
    currency: 'EUR',
    drop: [
      { column: 'Status', values: ['Vorgemerkt'] },
      { column: 'Buchungstag', values: ['Vorgemerkt'] },
    ],
  },
  commerzbank: {
    title: 'Commerzbank',
    description: 'Commerzbank CSV: ";", Buchungstag DD.MM.YYYY, -1.234,56, a Währung column',
    signatures: [['Buchungstag', 'Wertstellung', 'Umsatzart', 'Buchungstext', 'Betrag', 'Währung']],
    columns: {
      ts: ['Buchungstag'],
      amount: ['Betrag'],
      currency: ['Währung'],
      note: ['Buchungstext'],
      category: ['Kategorie'],
    },
    delimiter: ';',
    dateFormat: 'DD.MM.YYYY',
    decimalComma: true,
  },
  paypal: {
    title: 'PayPal',
    description:
      'PayPal activity CSV: Gross booked, Fee as entries of its own; only Completed rows that move the balance',
    signatures: [['Date', 'Time', 'TimeZone', 'Name', 'Type', 'Status', 'Currency', 'Gross', 'Fee', 'Net']],
    columns: {
      ts: ['Date'],
      amount: ['Gross'],
      currency: ['Currency'],
      counterparty: ['Name'],
      note: ['Type'],
      external_id: ['Transaction ID'],
    },
    fee: { columns: ['Fee'], charged: 'negative' },
    monthFirst: true,
    keep: [{ column: 'Status', values: ['Completed'] }],
    drop: [{ column: 'Balance Impact', values: ['Memo'] }],
  },
  'generic-eu': {
    title: 'a European bank layout',
    description:
      'a European bank CSV: ";", day-first dates, decimal comma; columns like Datum/Date, Betrag/Amount, Währung/Currency',
    columns: {
      ts: EU_DATE_NAMES,
      amount: ['Betrag', 'Umsatz', 'Amount', 'Importe', 'Montant', 'Importo', 'Bedrag'],
      currency: ['Währung', 'Waehrung', 'Currency', 'Devise', 'Divisa', 'Valuta', 'Moneda'],
      counterparty: [
        'Empfänger',
        'Name',
        'Beguenstigter/Zahlungspflichtiger',
        'Payee',
        'Bénéficiaire',
        'Tegenrekening naam',
      ],
      note: ['Verwendungszweck', 'Buchungstext', 'Description', 'Concepto', 'Libellé', 'Omschrijving'],
    },
    delimiter: ';',
    decimalComma: true,
    dayFirst: true,
  },
  'generic-us': {
    title: 'a US bank layout',
    description:
      'a US bank CSV: ",", MM/DD/YYYY, 1,234.56; columns like Date, Amount (or Debit/Credit), Description',
    columns: {
      ts: US_DATE_NAMES,
      amount: ['Amount', 'Transaction Amount'],
      currency: ['Currency'],
      counterparty: ['Description', 'Payee', 'Merchant', 'Name'],
      category: ['Category'],
      note: ['Memo', 'Notes'],
    },
    debit: ['Debit', 'Withdrawal', 'Withdrawals', 'Money Out'],
    credit: ['Credit', 'Deposit', 'Deposits', 'Money In'],
    monthFirst: true,
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** Earlier names that still work. */
const ALIASES: Record<string, PresetName> = {
  chase: 'chase-checking',
  ing: 'ing-de',
  'bank-of-america': 'bofa',
};

export function presetNamed(name: string): { name: PresetName; preset: Preset } | undefined {
  const key = name.toLowerCase();
  const found = (key in PRESETS ? key : ALIASES[key]) as PresetName | undefined;
  return found ? { name: found, preset: PRESETS[found] } : undefined;
}
