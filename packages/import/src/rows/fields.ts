import type { LiteralType } from '../send/literal.js';

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
/** The cast each non-text value needs in a VALUES list (the rest are text). */
export const LEDGER_CASTS: Partial<Record<LedgerField, LiteralType>> = {
  ts: 'timestamptz',
  amount: 'numeric',
};

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

/** The budget_lines columns an import may fill (`--into budget_lines`). */
export const BUDGET_FIELDS = [
  'budget_month',
  'direction',
  'category',
  'currency',
  'planned_value',
  'note',
] as const;
export type BudgetField = (typeof BUDGET_FIELDS)[number];
export const BUDGET_CASTS: Partial<Record<BudgetField, LiteralType>> = {
  budget_month: 'date',
  planned_value: 'numeric',
};
export const BUDGET_REQUIRED: readonly BudgetField[] = [
  'budget_month',
  'direction',
  'category',
  'planned_value',
  'currency',
];
export const DIRECTIONS = ['income', 'spend'] as const;

/** One validated budget line. */
export interface BudgetRow {
  line: number;
  /** The first day of the month, YYYY-MM-01. */
  budget_month: string;
  direction: string;
  category: string;
  currency: string;
  planned_value: string;
  note: string | null;
}

/** The fields of the table an import writes into, for mapping columns to them. */
export interface FieldSet {
  table: 'ledger_entries' | 'budget_lines';
  fields: readonly string[];
  required: readonly string[];
  /** A --map example for the hint when a required field has no column. */
  example: string;
}

export const LEDGER_FIELD_SET: FieldSet = {
  table: 'ledger_entries',
  fields: LEDGER_FIELDS,
  required: REQUIRED_FIELDS,
  example: '--map "Date=ts" --map "Amount=amount"',
};
export const BUDGET_FIELD_SET: FieldSet = {
  table: 'budget_lines',
  fields: BUDGET_FIELDS,
  required: BUDGET_REQUIRED,
  example: '--map "Month=budget_month" --map "Planned=planned_value"',
};
