/** The ledger_entries columns an import may fill (data-model.md); the rest are filled by the service. */
export const LEDGER_FIELDS = [
  'ts',
  'account_id',
  'amount',
  'currency',
  'kind',
  'category',
  'counterparty',
  'note',
  'event_id',
  'external_id',
] as const;
export type LedgerField = (typeof LEDGER_FIELDS)[number];

export const REQUIRED_FIELDS: readonly LedgerField[] = ['ts', 'account_id', 'amount', 'currency'];
export const KINDS = ['income', 'spend', 'transfer'] as const;

export const isLedgerField = (name: string): name is LedgerField =>
  (LEDGER_FIELDS as readonly string[]).includes(name);

/** One validated row, every value already in the form it is sent in. */
export interface LedgerRow {
  /** 1-based line of the CSV file where the record starts. */
  line: number;
  ts: string;
  account_id: string;
  amount: string;
  currency: string;
  kind: string;
  category: string | null;
  counterparty: string | null;
  note: string | null;
  event_id: string | null;
  external_id: string;
}
