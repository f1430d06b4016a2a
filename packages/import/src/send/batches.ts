import { LEDGER_CASTS, LEDGER_FIELDS, type LedgerRow } from '../rows/fields.js';
import { sha256Hex } from './digest.js';
import { type LiteralType, quoteLiteral } from './literal.js';

/** Rows per call (seed spec, "Client guidance for long writes"); also the server's affected-row cap. */
export const MAX_BATCH_ROWS = 100;
/** Rows in the probe that runs first, the same SQL shape as every batch. */
export const PROBE_ROWS = 3;

/** A validated row ready to send: its values by column, and the CSV line it came from. */
export interface ImportRow {
  /** 1-based line of the CSV file where the record starts. */
  line: number;
}

/** What an import writes into: the table, its columns with the cast each needs, and when a row is skipped. */
export interface ImportTarget<R extends ImportRow> {
  table: 'ledger_entries' | 'budget_lines';
  columns: readonly (readonly [keyof R & string, LiteralType | null])[];
  /**
   * Conditions (over `e`, the table, and `v`, the VALUES row) any of which skips a row; each is its own
   * NOT EXISTS, so PostgreSQL can plan each as an anti-join on its index rather than a scan per row.
   */
  present: readonly string[];
  /** Rows that must travel in the same batch (the legs of one event), or null for a row on its own. */
  group(row: R): string | null;
}

export interface Batch<R extends ImportRow = LedgerRow> {
  index: number;
  probe: boolean;
  rows: R[];
  /** A statement of its own instead of the rows' INSERT (a transfer's step, transfers/sql.ts). */
  sql?: string;
  /** A transfer's step: what it does with its row, and the account on the other side. */
  transfer?: { kind: 'paired' | 'moved'; with: string };
}

/** Room for the VALUES rows of one statement, under the server's 100,000-character SQL limit. */
export const MAX_VALUES_CHARS = 90_000;

/**
 * The ledger: a row is skipped when its external_id is there, and so is every leg of an event whose
 * event_id is there already, so a repeated import never adds one leg of a transfer without the other.
 */
export const LEDGER_TARGET: ImportTarget<LedgerRow> = {
  table: 'ledger_entries',
  columns: LEDGER_FIELDS.map((field) => [field, LEDGER_CASTS[field] ?? null] as const),
  present: ['e.external_id = v.external_id', 'e.event_id = v.event_id'],
  group: (row) => row.event_id,
};

/** Keeps rows of one group together: consecutive runs of whole groups, in the order each group first appears. */
function units<R extends ImportRow>(rows: R[], target: ImportTarget<R>): R[][] {
  const out: R[][] = [];
  const byGroup = new Map<string, R[]>();
  for (const row of rows) {
    const group = target.group(row);
    if (group === null) {
      out.push([row]);
      continue;
    }
    const unit = byGroup.get(group);
    if (unit) unit.push(row);
    else {
      const fresh = [row];
      byGroup.set(group, fresh);
      out.push(fresh);
    }
  }
  return out;
}

/**
 * The probe (1 to 3 rows, more only when the first event has more legs) and then batches of at most 100
 * rows, in file order; a batch also ends early when its SQL would grow past the server's SQL length limit
 * (long notes). The rows of one event (same event_id) are always in the same batch: a transfer must balance
 * within one request. Validation refuses an event of more than 100 rows first.
 */
export function planBatches<R extends ImportRow = LedgerRow>(
  rows: R[],
  target: ImportTarget<R> = LEDGER_TARGET as unknown as ImportTarget<R>,
): Batch<R>[] {
  const all = units(rows, target);
  const batches: Batch<R>[] = [];
  let current: R[] = [];
  let chars = 0;
  let probe = true;
  const close = () => {
    if (current.length) batches.push({ index: batches.length, probe, rows: current });
    probe = false;
    current = [];
    chars = 0;
  };
  for (const unit of all) {
    const size = unit.reduce((n, row) => n + valuesRow(row, target).length + 4, 0);
    const limit = probe ? PROBE_ROWS : MAX_BATCH_ROWS;
    if (
      current.length > 0 &&
      (current.length + unit.length > limit || (!probe && chars + size > MAX_VALUES_CHARS))
    )
      close();
    current.push(...unit);
    chars += size;
    if (probe && current.length >= PROBE_ROWS) close();
  }
  close();
  return batches;
}

const literal = (value: string | null) => (value === null ? 'NULL' : quoteLiteral(value));

function valuesRow<R extends ImportRow>(row: R, target: ImportTarget<R>): string {
  return `(${target.columns.map(([name]) => literal(row[name] as string | null)).join(', ')})`;
}

/**
 * One INSERT for a batch that skips rows the workspace already holds. The dialect has no ON CONFLICT, so
 * the check is a NOT EXISTS over the table; with the database's unique indexes a concurrent import of the
 * same rows fails instead of duplicating them. The VALUES rows hold plain literals only and the casts sit
 * once in the select list: the guard limits how many operators and brackets one statement may have, and a
 * cast per value would pass it at 100 rows.
 */
export function buildInsert<R extends ImportRow = LedgerRow>(
  rows: R[],
  target: ImportTarget<R> = LEDGER_TARGET as unknown as ImportTarget<R>,
): string {
  const list = target.columns.map(([name]) => name).join(', ');
  const select = target.columns.map(([name, type]) => (type ? `v.${name}::${type}` : `v.${name}`)).join(', ');
  return [
    `INSERT INTO ${target.table} (${list})`,
    `SELECT ${select}`,
    'FROM (VALUES',
    rows.map((r) => `  ${valuesRow(r, target)}`).join(',\n'),
    `) AS v (${list})`,
    `WHERE ${target.present.map((c) => `NOT EXISTS (SELECT 1 FROM ${target.table} e WHERE ${c})`).join('\n  AND ')}`,
  ].join('\n');
}

/**
 * The Idempotency-Key of a batch: the file's content, the options that shape the rows, and the batch
 * index. A repeat of the same import replays; a changed file or mapping gets new keys.
 */
export function idempotencyKey(fileDigest: string, optionsFingerprint: string, batchIndex: number): string {
  const h = sha256Hex(`expense-import/1\n${fileDigest}\n${optionsFingerprint}\n${batchIndex}`);
  return `import-${h.slice(0, 48)}`;
}
