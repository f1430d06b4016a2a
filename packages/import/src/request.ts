// What prepareImport is asked and answers: the request, the hooks that ask a person or the service, the prepared rows.

import type { DateFormat } from './csv/dialect.js';
import type { ImportNote } from './notes.js';
import type { BudgetRow, LedgerRow } from './rows/fields.js';
import type { ImportTarget } from './send/batches.js';
import type { FileFormat } from './sniff/format.js';
import type { Reconciliation } from './statements/reconcile.js';

export interface ImportRequest {
  /** The file's name, for messages. */
  fileName: string;
  bytes: Uint8Array;
  into?: string;
  account?: string | undefined;
  map?: string[];
  /** A preset's name; false to recognise none (`--no-preset`). */
  preset?: string | false | undefined;
  delimiter?: string | undefined;
  skipLines?: string | number | undefined;
  encoding?: string | undefined;
  dateFormat?: string | undefined;
  decimalComma?: boolean | undefined;
  currency?: string | undefined;
  debit?: string | undefined;
  credit?: string | undefined;
  invertSign?: boolean | undefined;
  /** Names of a headerless file's columns in order, comma-separated (`--columns date,amount,-,description`). */
  columns?: string | undefined;
  /** How a card file writes its charges (`--charges-positive` / `--charges-negative`), when its sign cannot be told. */
  charges?: 'positive' | 'negative' | undefined;
}

export interface ImportHooks {
  /** Dates that read two ways: which order is meant (a terminal asks; elsewhere wrong usage). */
  chooseDateFormat(formats: DateFormat[], example: string): Promise<DateFormat>;
  /** The workspace's reporting_currency, for rows that get their currency from nowhere else. */
  workspaceCurrency(): Promise<string>;
  /**
   * The account_id for a file without `--account`: `named` is what the file calls its account (an IBAN, an account
   * number, OFX's ACCTID), to be matched to the workspace's accounts; a terminal asks when nothing is named.
   * Undefined keeps `named` (and, when the file names none, refuses as before). Absent: the file's name is used.
   */
  account?(named: string | undefined, context: { card: boolean }): Promise<string | undefined>;
  /** A card file whose sign cannot be told: how it writes its charges (a terminal asks; elsewhere refused). */
  chooseCharges?(example: string): Promise<'positive' | 'negative' | undefined>;
}

interface PreparedBase {
  /** The notes in the CLI's words (`noteWords(note, 'cli')` of `noted`). */
  notes: string[];
  /** What the reader decided, as data: each reader words it (`noteWords`). */
  noted: ImportNote[];
  /** The bank's layout applied, and whether it was recognised rather than given. */
  bank: { name: string; title: string; recognised: boolean } | undefined;
  /** Rows left out on purpose (pending, a balance line), with why. */
  left: { line: number; reason: string }[];
  /** What shapes the rows, for the batches' Idempotency-Keys. */
  fingerprint: string;
  /** The file's format: `csv`, or a statement's (`ofx`, `qif`, `camt`, `mt940`). */
  format: FileFormat;
  /** Each account's statement balances against its booked rows (statements that give both balances). */
  reconciliation: Reconciliation[];
}
export type PreparedImport =
  | (PreparedBase & { into: 'ledger_entries'; rows: LedgerRow[]; target: ImportTarget<LedgerRow> })
  | (PreparedBase & { into: 'budget_lines'; rows: BudgetRow[]; target: ImportTarget<BudgetRow> });
