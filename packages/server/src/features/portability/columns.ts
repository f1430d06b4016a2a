import type { ExportRelation } from '@expense/wire';
import type { Queryable } from '../../platform/storage/database.js';

/** A column of a workspace relation as the export reads and restore writes it (workspace_id left out). */
export interface ExportColumn {
  name: string;
  /** format_type of the column: decides how its value is written (numeric and timestamps as exact text). */
  type: string;
}

/** The key each relation's rows are read in order of (keyset batches), and restore matches ids by. */
export const RELATION_KEYS: Record<ExportRelation, string> = {
  workspace_settings: 'workspace_id',
  account_metadata: 'account_id',
  budget_lines: 'line_id',
  ledger_entries: 'entry_id',
};

/** The ids restore keeps when free on this server, and replaces with new ones when another workspace holds them. */
export const GENERATED_IDS: Partial<Record<ExportRelation, string>> = {
  budget_lines: 'line_id',
  ledger_entries: 'entry_id',
};

/**
 * The columns of a relation, from the catalog (so a column added by a migration is exported and restored with no
 * change here), in their table order, without workspace_id (the workspace is the export's, and restore's own).
 */
export async function relationColumns(db: Queryable, relation: ExportRelation): Promise<ExportColumn[]> {
  const { rows } = await db.query<{ name: string; type: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
     FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = format('public.%I', $1::text)::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attname <> 'workspace_id'
     ORDER BY a.attnum`,
    [relation],
  );
  return rows;
}

/** Timestamps as ISO 8601 in UTC with microseconds: exact, and the same text on both engines. */
export function utcText(expression: string): string {
  return `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** The SQL expression a column's value is read as: numeric and timestamps as exact text, the rest as they are. */
export function valueExpression(column: ExportColumn, alias: string, asText: boolean): string {
  const ref = `${alias}.${quoteIdent(column.name)}`;
  if (column.type.startsWith('timestamp with time zone')) return utcText(ref);
  if (asText || column.type.startsWith('numeric')) return `${ref}::text`;
  return ref;
}

/** A column name as an SQL identifier (names come from the catalog; quoted all the same). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A column name as an SQL string literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
