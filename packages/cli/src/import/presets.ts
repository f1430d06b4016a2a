import type { DateFormat, Delimiter } from './dialect.js';
import type { LedgerField } from './fields.js';

/**
 * How common bank exports are laid out (`expense import --preset <name>`): the columns, in the bank's
 * words, and the file's dialect. Every name lists the headers the bank has used for it; the first present in
 * the file is taken. Options given on the command line win over the preset's.
 */
export interface Preset {
  description: string;
  columns: Partial<Record<LedgerField, readonly string[]>>;
  /** Separate money-out and money-in columns instead of a signed amount. */
  debit?: readonly string[];
  credit?: readonly string[];
  delimiter?: Delimiter;
  dateFormat?: DateFormat;
  /** When the order of a date is ambiguous (03/04/2026), the day comes first. */
  dayFirst?: boolean;
  decimalComma?: boolean;
  currency?: string;
  /** The file shows charges as positive numbers (a card statement). */
  invertSign?: boolean;
  /** Read as Latin-1 when the file is not UTF-8 (older exports). */
  latin1Fallback?: boolean;
  /** The header line, found below the bank's preamble. */
  header?: RegExp;
  /** Rows without an amount (a "beginning balance" line) carry no movement and are left out. */
  skipWithoutAmount?: boolean;
  /** Only rows whose column has one of these values are movements (others are pending or reverted). */
  keepWhen?: { column: string; values: readonly string[] };
}

export const PRESETS = {
  chase: {
    description:
      'Chase checking (Details, Posting Date, ...) or card (Transaction Date, ...) CSV; MM/DD/YYYY, USD',
    columns: {
      ts: ['Posting Date', 'Transaction Date'],
      amount: ['Amount'],
      counterparty: ['Description'],
      category: ['Category'],
      note: ['Memo'],
    },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
  },
  bofa: {
    description: 'Bank of America checking CSV: a summary above the table, a "Beginning balance" row; USD',
    columns: { ts: ['Date'], amount: ['Amount'], counterparty: ['Description'] },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
    header: /^"?Date"?,"?Description"?,"?Amount"?/,
    skipWithoutAmount: true,
  },
  amex: {
    description: 'American Express activity CSV: charges are positive, payments negative; MM/DD/YYYY, USD',
    columns: {
      ts: ['Date'],
      amount: ['Amount'],
      counterparty: ['Description'],
      category: ['Category'],
      external_id: ['Reference'],
    },
    dateFormat: 'MM/DD/YYYY',
    currency: 'USD',
    invertSign: true,
  },
  dkb: {
    description: 'DKB Girokonto CSV (UTF-8 or the older Latin-1): a preamble, ";", DD.MM.YY, -1.234,56; EUR',
    columns: {
      ts: ['Buchungsdatum', 'Buchungstag'],
      amount: ['Betrag (€)', 'Betrag (EUR)'],
      counterparty: ['Zahlungsempfänger*in', 'Auftraggeber / Begünstigter'],
      note: ['Verwendungszweck'],
    },
    delimiter: ';',
    dateFormat: 'DD.MM.YYYY',
    decimalComma: true,
    currency: 'EUR',
    latin1Fallback: true,
    header: /^"?(Buchungsdatum|Buchungstag)"?;/,
  },
  revolut: {
    description:
      'Revolut account statement CSV: a Currency column; only COMPLETED rows; the Fee column is not imported',
    columns: {
      ts: ['Started Date', 'Completed Date'],
      amount: ['Amount'],
      currency: ['Currency'],
      counterparty: ['Description'],
    },
    keepWhen: { column: 'State', values: ['COMPLETED'] },
  },
  monzo: {
    description: 'Monzo CSV: Transaction ID as external_id, DD/MM/YYYY, a Currency column',
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
  n26: {
    description: 'N26 CSV (Booking Date or Date, Partner Name or Payee, Amount (EUR)); EUR',
    columns: {
      ts: ['Booking Date', 'Date'],
      amount: ['Amount (EUR)'],
      counterparty: ['Partner Name', 'Payee'],
      note: ['Payment Reference', 'Payment reference'],
    },
    currency: 'EUR',
  },
  'generic-eu': {
    description:
      'a European bank CSV: ";", day-first dates, decimal comma; columns like Datum/Date, Betrag/Amount, Währung/Currency',
    columns: {
      ts: ['Datum', 'Buchungstag', 'Buchungsdatum', 'Date', 'Fecha', 'Data', 'Datum transactie'],
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
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function presetNamed(name: string): Preset | undefined {
  return (PRESETS as Record<string, Preset>)[name.toLowerCase()];
}
