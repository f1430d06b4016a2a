import { EXPORT_RELATIONS, type ExportRelation } from '@expense/wire';
import type { Queryable } from '../../platform/storage/database.js';
import {
  type ExportColumn,
  quoteIdent,
  quoteLiteral,
  RELATION_KEYS,
  utcText,
  valueExpression,
} from './columns.js';

/** Rows per read: each batch is one short statement, written out before the next is read. */
export const EXPORT_BATCH_ROWS = 1000;

/**
 * Empties an array of rows once they have been handed on, so that a dead array holds none of them. An array that a
 * batch is read into can outlive two young-generation collections while the driver fills it (a batch arrives over
 * many socket reads) and be moved to V8's old generation; dead there, it still keeps every row put in it alive
 * through each young collection (they are moved to the old generation in turn) until the next full collection,
 * which V8 starts only once the old generation has grown to about four times the live heap. Measured on the
 * server (bench/export-memory.ts, the JSON of 300,000 entries): RSS +112 MiB above its baseline before, in a
 * sawtooth, nearly every row passing through the old generation; +26 MiB with the arrays emptied; +3 MiB with the
 * JSON also handed on in small pieces (json-export.ts, PIECE_CHARS).
 */
export function forget(rows: unknown[]): void {
  rows.length = 0;
}

/** One batch of a relation: as JSON texts (one per row) or as rows of text cells (CSV). */
export type Batch = string[] | (string | null)[][];

/** The workspace an export reads, and where. */
export interface ExportSource {
  db: Queryable;
  workspaceId: string;
}

/**
 * Reads a workspace relation in batches by its key (keyset pagination, each batch its own statement: no
 * transaction is held while the client reads, which on the embedded engine would stop every other request).
 * `json`: each row as the JSON text PostgreSQL builds (numeric and timestamps as exact strings); `text`: cells.
 */
export async function* relationBatches(
  source: ExportSource,
  relation: ExportRelation,
  columns: ExportColumn[],
  shape: 'json' | 'text',
): AsyncGenerator<Batch> {
  const key = RELATION_KEYS[relation];
  const keyRef = `t.${quoteIdent(key)}`;
  const select =
    shape === 'json'
      ? `json_build_object(${columns.map((c) => `${quoteLiteral(c.name)}, ${valueExpression(c, 't', false)}`).join(', ')})::text AS r`
      : columns.map((c, i) => `${valueExpression(c, 't', true)} AS c${i}`).join(', ');
  let after: string | null = null;
  for (;;) {
    const { rows }: { rows: Record<string, string | null>[] } = await source.db.query(
      `SELECT ${select}, ${keyRef}::text AS k FROM public.${quoteIdent(relation)} t
       WHERE t.workspace_id = $1 ${after === null ? '' : `AND ${keyRef} > $2`}
       ORDER BY ${keyRef} LIMIT ${EXPORT_BATCH_ROWS}`,
      after === null ? [source.workspaceId] : [source.workspaceId, after],
    );
    if (rows.length === 0) return;
    const batch: Batch =
      shape === 'json'
        ? rows.map((r) => r.r as string)
        : rows.map((r) => columns.map((_, i) => r[`c${i}`] ?? null));
    const last: string | null = rows.length < EXPORT_BATCH_ROWS ? null : (rows[rows.length - 1]!.k as string);
    forget(rows);
    yield batch;
    if (last === null) return;
    after = last;
  }
}

/** The columns of the history's changes, as the export writes them (JSON and CSV alike). */
export const CHANGE_COLUMNS = [
  'change_id',
  'at',
  'endpoint',
  'sql',
  'statements',
  'reverts',
  'user_id',
  'email',
  'connection_id',
] as const;
export const CHANGE_ROW_COLUMNS = ['change_id', 'table', 'key', 'before', 'after'] as const;

const CHANGE_VALUES = [
  'c.change_id',
  utcText('c.at'),
  'c.endpoint',
  'c.sql_text',
  'c.statements',
  'c.reverts',
  'c.user_id',
  // A probe of users' primary key per change: a join let the planner hash every user of the service (issue 42).
  '(SELECT u.email FROM expense_internal.users u WHERE u.user_id = c.user_id)',
  'c.connection_id',
];
const CHANGE_ROW_VALUES = ['r.change_id', 'r.table_name', 'r.row_key', 'r.before_image', 'r.after_image'];

function selectList(names: readonly string[], values: string[], shape: 'json' | 'text'): string {
  return shape === 'json'
    ? `json_build_object(${names.map((n, i) => `${quoteLiteral(n)}, ${values[i]}`).join(', ')})::text AS r`
    : values.map((v, i) => `${v}::text AS c${i}`).join(', ');
}

function shaped(rows: Record<string, string | null>[], width: number, shape: 'json' | 'text'): Batch {
  return shape === 'json'
    ? rows.map((r) => r.r as string)
    : rows.map((r) => Array.from({ length: width }, (_, i) => r[`c${i}`] ?? null));
}

/** The workspace's change history, oldest first, in batches by its sequence. */
export async function* changeBatches(source: ExportSource, shape: 'json' | 'text'): AsyncGenerator<Batch> {
  let after = '0';
  for (;;) {
    const { rows }: { rows: Record<string, string | null>[] } = await source.db.query(
      `SELECT ${selectList(CHANGE_COLUMNS, CHANGE_VALUES, shape)}, c.seq::text AS k
       FROM expense_internal.changes c
       WHERE c.workspace_id = $1 AND c.seq > $2::bigint ORDER BY c.seq LIMIT ${EXPORT_BATCH_ROWS}`,
      [source.workspaceId, after],
    );
    if (rows.length === 0) return;
    const batch = shaped(rows, CHANGE_COLUMNS.length, shape);
    const last: string | null = rows.length < EXPORT_BATCH_ROWS ? null : (rows[rows.length - 1]!.k as string);
    forget(rows);
    yield batch;
    if (last === null) return;
    after = last;
  }
}

/** The row images of the workspace's changes, change by change (oldest first), in batches. */
export async function* changeRowBatches(source: ExportSource, shape: 'json' | 'text'): AsyncGenerator<Batch> {
  let afterChange = '0';
  for (;;) {
    const { rows: ids } = await source.db.query<{ change_id: string; k: string }>(
      `SELECT change_id::text, seq::text AS k FROM expense_internal.changes
       WHERE workspace_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT 100`,
      [source.workspaceId, afterChange],
    );
    if (ids.length === 0) return;
    for (const { change_id } of ids) {
      let afterSeq = '0';
      for (;;) {
        const { rows }: { rows: Record<string, string | null>[] } = await source.db.query(
          `SELECT ${selectList(CHANGE_ROW_COLUMNS, CHANGE_ROW_VALUES, shape)}, r.seq::text AS k
           FROM expense_internal.change_rows r WHERE r.change_id = $1 AND r.seq > $2::bigint
           ORDER BY r.seq LIMIT ${EXPORT_BATCH_ROWS}`,
          [change_id, afterSeq],
        );
        const last: string | null =
          rows.length < EXPORT_BATCH_ROWS ? null : (rows[rows.length - 1]!.k as string);
        if (rows.length > 0) {
          const batch = shaped(rows, CHANGE_ROW_COLUMNS.length, shape);
          forget(rows);
          yield batch;
        }
        if (last === null) break;
        afterSeq = last;
      }
    }
    if (ids.length < 100) return;
    afterChange = ids[ids.length - 1]!.k;
  }
}

/** The newest change's sequence number (0 without any): compared before and after, it tells of writes during an export. */
export async function newestChange(source: ExportSource): Promise<string> {
  const { rows } = await source.db.query<{ seq: string | null }>(
    'SELECT max(seq)::text AS seq FROM expense_internal.changes WHERE workspace_id = $1',
    [source.workspaceId],
  );
  return rows[0]?.seq ?? '0';
}

export { EXPORT_RELATIONS };
