import { createHash } from 'node:crypto';
import { type LiteralType, quoteLiteral } from '../sql/literal.js';
import type { LedgerRow } from './fields.js';

/** Rows per call (seed spec, "Client guidance for long writes"); also the server's affected-row cap. */
export const MAX_BATCH_ROWS = 100;
/** Rows in the probe that runs first, the same SQL shape as every batch. */
export const PROBE_ROWS = 3;

export interface Batch {
  index: number;
  probe: boolean;
  rows: LedgerRow[];
}

/** Room for the VALUES rows of one statement, under the server's 100,000-character SQL limit. */
export const MAX_VALUES_CHARS = 90_000;

/**
 * The probe (1 to 3 rows) and then batches of at most 100 rows, in file order; a batch also ends early when
 * its SQL would grow past the server's SQL length limit (long notes).
 */
export function planBatches(rows: LedgerRow[]): Batch[] {
  const probe = rows.slice(0, PROBE_ROWS);
  const batches: Batch[] = probe.length ? [{ index: 0, probe: true, rows: probe }] : [];
  let current: LedgerRow[] = [];
  let chars = 0;
  for (const row of rows.slice(probe.length)) {
    const size = valuesRow(row).length + 4;
    if (current.length === MAX_BATCH_ROWS || (current.length > 0 && chars + size > MAX_VALUES_CHARS)) {
      batches.push({ index: batches.length, probe: false, rows: current });
      current = [];
      chars = 0;
    }
    current.push(row);
    chars += size;
  }
  if (current.length) batches.push({ index: batches.length, probe: false, rows: current });
  return batches;
}

/** The columns an import writes, with the cast each needs (VALUES of plain literals are text). */
const COLUMNS = [
  ['ts', 'timestamptz'],
  ['account_id', null],
  ['amount', 'numeric'],
  ['currency', null],
  ['kind', null],
  ['category', null],
  ['counterparty', null],
  ['note', null],
  ['event_id', null],
  ['external_id', null],
] as const satisfies readonly (readonly [keyof LedgerRow, LiteralType | null])[];

const literal = (value: string | null) => (value === null ? 'NULL' : quoteLiteral(value));

function valuesRow(row: LedgerRow): string {
  return `(${COLUMNS.map(([name]) => literal(row[name] as string | null)).join(', ')})`;
}

/**
 * One INSERT for a batch that skips rows whose external_id the workspace already holds. The dialect has no
 * ON CONFLICT, so the check is a NOT EXISTS over the table; with the database's unique index on
 * (workspace_id, external_id) a concurrent import of the same rows fails instead of duplicating them.
 * The VALUES rows hold plain literals only and the casts sit once in the select list: the guard limits
 * how many operators and brackets one statement may have, and a cast per value would pass it at 100 rows.
 */
export function buildInsert(rows: LedgerRow[]): string {
  const list = COLUMNS.map(([name]) => name).join(', ');
  const select = COLUMNS.map(([name, type]) => (type ? `v.${name}::${type}` : `v.${name}`)).join(', ');
  return [
    `INSERT INTO ledger_entries (${list})`,
    `SELECT ${select}`,
    'FROM (VALUES',
    rows.map((r) => `  ${valuesRow(r)}`).join(',\n'),
    `) AS v (${list})`,
    'WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.external_id = v.external_id)',
  ].join('\n');
}

/**
 * The Idempotency-Key of a batch: the file's content, the options that shape the rows, and the batch
 * index. A repeat of the same import replays; a changed file or mapping gets new keys.
 */
export function idempotencyKey(fileDigest: string, optionsFingerprint: string, batchIndex: number): string {
  const h = createHash('sha256').update(
    `expense-import/1\n${fileDigest}\n${optionsFingerprint}\n${batchIndex}`,
  );
  return `import-${h.digest('hex').slice(0, 48)}`;
}
