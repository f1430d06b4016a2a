import type { Change, ChangeGroupSummary, ChangeMember, ChangePreviewRow, ChangeRow } from '@expense/wire';
import type { Queryable } from '../../platform/storage/database.js';

interface ChangeRecord {
  change_id: string;
  short_id: string;
  at: Date;
  endpoint: Change['endpoint'];
  sql_text: string;
  statements: Change['statements'];
  user_id: string | null;
  email: string | null;
  connection_id: string | null;
  label: string | null;
  reverts: string | null;
  reverted_by: string | null;
  group_id: string | null;
  group_label: string | null;
}

/**
 * A change's short id: the last 8 hex digits of its id, 12 when another change of the workspace ends in the same 8,
 * the whole id when one ends in the same 12 too (migration 0051 indexes the tail per workspace).
 */
const shortIdOf = (c: string) => `CASE
    WHEN NOT EXISTS (SELECT 1 FROM expense_internal.changes t WHERE t.workspace_id = ${c}.workspace_id
      AND right(t.change_id::text, 8) = right(${c}.change_id::text, 8) AND t.change_id <> ${c}.change_id)
      THEN right(${c}.change_id::text, 8)
    WHEN NOT EXISTS (SELECT 1 FROM expense_internal.changes t WHERE t.workspace_id = ${c}.workspace_id
      AND right(t.change_id::text, 8) = right(${c}.change_id::text, 8)
      AND right(t.change_id::text, 12) = right(${c}.change_id::text, 12) AND t.change_id <> ${c}.change_id)
      THEN right(${c}.change_id::text, 12)
    ELSE ${c}.change_id::text END`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The statement that reads one change's short id (as GET /changes shows it), the id spelt as a literal: for a
 * session without parameters (a write's own transaction, as the owner). Refuses an id that is not a UUID.
 */
export function shortIdSelect(changeId: string): string {
  if (!UUID.test(changeId)) throw new Error('change: refusing an unexpected id');
  return `SELECT ${shortIdOf('c')} AS short_id FROM expense_internal.changes c WHERE c.change_id = '${changeId}'`;
}

const SELECT_CHANGES = `
  SELECT c.change_id, ${shortIdOf('c')} AS short_id, c.at, c.endpoint, c.sql_text, c.statements, c.user_id, u.email, c.connection_id, k.label,
         c.reverts, c.group_id, c.group_label,
         (SELECT r.change_id FROM expense_internal.changes r WHERE r.reverts = c.change_id
          ORDER BY r.seq LIMIT 1) AS reverted_by
  FROM expense_internal.changes c
  LEFT JOIN expense_internal.users u ON u.user_id = c.user_id
  LEFT JOIN expense_internal.api_keys k ON k.connection_id = c.connection_id`;

function toChange(r: ChangeRecord, group?: ChangeGroupSummary): Change {
  return {
    changeId: r.change_id,
    shortId: r.short_id,
    at: r.at.toISOString(),
    endpoint: r.endpoint,
    sql: r.sql_text,
    statements: r.statements,
    by: { userId: r.user_id, email: r.email, connectionId: r.connection_id, label: r.label },
    ...(r.reverts ? { reverts: r.reverts } : {}),
    ...(r.reverted_by ? { revertedBy: r.reverted_by } : {}),
    ...(group ? { group } : {}),
  };
}

/** Only the newest change of a group stands for it in the history (migration 0042). */
const GROUP_HEAD = `(c.group_id IS NULL OR NOT EXISTS (SELECT 1 FROM expense_internal.changes n
  WHERE n.workspace_id = c.workspace_id AND n.group_id = c.group_id AND n.seq > c.seq))`;

/** Rows a change wrote: the sum of its statements' row counts. */
const ROW_COUNT = `(SELECT coalesce(sum((s.value ->> 'rowCount')::bigint), 0)
  FROM jsonb_array_elements(m.statements) AS s)`;

/** The changes of a group, oldest first, with their row counts and reverts. */
export async function groupMembers(
  db: Queryable,
  workspaceId: string,
  groupId: string,
): Promise<ChangeMember[]> {
  const { rows } = await db.query<{ change_id: string; row_count: string; reverted_by: string | null }>(
    `SELECT m.change_id, ${ROW_COUNT} AS row_count,
            (SELECT r.change_id FROM expense_internal.changes r WHERE r.reverts = m.change_id
             ORDER BY r.seq LIMIT 1) AS reverted_by
     FROM expense_internal.changes m WHERE m.workspace_id = $1 AND m.group_id = $2 ORDER BY m.seq`,
    [workspaceId, groupId],
  );
  return rows.map((r) => ({
    changeId: r.change_id,
    rowCount: Number(r.row_count),
    ...(r.reverted_by ? { revertedBy: r.reverted_by } : {}),
  }));
}

/** The summaries of the groups of some changes (one query for a page of the history). */
async function groupSummaries(
  db: Queryable,
  workspaceId: string,
  records: ChangeRecord[],
): Promise<Map<string, ChangeGroupSummary>> {
  const ids = [...new Set(records.map((r) => r.group_id).filter((g): g is string => g !== null))];
  const out = new Map<string, ChangeGroupSummary>();
  if (ids.length === 0) return out;
  const { rows } = await db.query<{ group_id: string; changes: string; row_count: string; reverted: string }>(
    `SELECT m.group_id, count(*) AS changes, sum(${ROW_COUNT}) AS row_count,
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM expense_internal.changes r WHERE r.reverts = m.change_id))
              AS reverted
     FROM expense_internal.changes m
     WHERE m.workspace_id = $1 AND m.group_id = ANY (string_to_array($2, ',')::uuid[])
     GROUP BY m.group_id`,
    [workspaceId, ids.join(',')],
  );
  const labels = new Map(records.map((r) => [r.group_id, r.group_label]));
  for (const r of rows) {
    out.set(r.group_id, {
      groupId: r.group_id,
      label: labels.get(r.group_id) ?? null,
      changes: Number(r.changes),
      rowCount: Number(r.row_count),
      reverted: Number(r.reverted),
    });
  }
  return out;
}

async function withGroups(db: Queryable, workspaceId: string, records: ChangeRecord[]): Promise<Change[]> {
  const groups = await groupSummaries(db, workspaceId, records);
  return records.map((r) => toChange(r, r.group_id ? groups.get(r.group_id) : undefined));
}

const PREVIEW_ROWS = 3;
const text = (v: unknown): string | null =>
  v === null || v === undefined || v === '' ? null : typeof v === 'string' ? v : String(v);

/** A row image as a person names it: date, words (counterparty, note, category, account) and amount. */
export function previewRow(
  table: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): ChangePreviewRow {
  const row = after ?? before ?? {};
  return {
    table,
    action: before === null ? 'added' : after === null ? 'removed' : 'changed',
    date: text(row.ts ?? row.budget_month),
    label: text(row.counterparty ?? row.note ?? row.category ?? row.display_name ?? row.account_id),
    amount: text(row.amount ?? row.planned_value),
    currency: text(row.currency ?? row.reporting_currency),
  };
}

/** The first rows of each change, as previewRow names them (one query for a page of the history). */
async function previews(db: Queryable, ids: string[]): Promise<Map<string, ChangePreviewRow[]>> {
  const out = new Map<string, ChangePreviewRow[]>();
  if (ids.length === 0) return out;
  const { rows } = await db.query<{
    change_id: string;
    table_name: string;
    before_image: Record<string, unknown> | null;
    after_image: Record<string, unknown> | null;
  }>(
    `SELECT ids.id AS change_id, r.table_name,
            expense_internal.change_image_out(r.before_image) AS before_image,
            expense_internal.change_image_out(r.after_image) AS after_image
     FROM unnest(string_to_array($1, ',')::uuid[]) AS ids(id)
     CROSS JOIN LATERAL (SELECT cr.table_name, cr.before_image, cr.after_image FROM expense_internal.change_rows cr
                         WHERE cr.change_id = ids.id ORDER BY cr.seq LIMIT ${PREVIEW_ROWS}) r`,
    [ids.join(',')],
  );
  for (const r of rows) {
    const list = out.get(r.change_id) ?? [];
    list.push(previewRow(r.table_name, r.before_image, r.after_image));
    out.set(r.change_id, list);
  }
  return out;
}

/** The workspace's time zone (workspace_settings.timezone; UTC without settings). */
export async function historyTimeZone(db: Queryable, workspaceId: string): Promise<string> {
  const { rows } = await db.query<{ timezone: string }>(
    'SELECT timezone FROM public.workspace_settings WHERE workspace_id = $1',
    [workspaceId],
  );
  return rows[0]?.timezone ?? 'UTC';
}

/** The UUID range of the ids that start with `prefix` (hex digits, dashes ignored), or undefined. */
export function idPrefixRange(prefix: string): [string, string] | undefined {
  const hex = prefix.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{1,32}$/.test(hex)) return undefined;
  const uuid = (h: string) =>
    `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return [uuid(hex.padEnd(32, '0')), uuid(hex.padEnd(32, 'f'))];
}

/** A change that a short id or prefix names: one of the candidates of an ambiguous one. */
export interface ChangeCandidate {
  changeId: string;
  shortId: string;
  at: string;
}

/** The changes of the workspace whose id starts with `given` or (8 hex digits or more) ends with it; at most 10. */
export async function matchChanges(
  db: Queryable,
  workspaceId: string,
  given: string,
): Promise<ChangeCandidate[]> {
  const hex = given.replace(/-/g, '').toLowerCase();
  const range = idPrefixRange(hex);
  if (!range) return [];
  const { rows } = await db.query<{ change_id: string; short_id: string; at: Date }>(
    `SELECT c.change_id, ${shortIdOf('c')} AS short_id, c.at FROM expense_internal.changes c
     WHERE c.workspace_id = $1 AND (c.change_id BETWEEN $2::uuid AND $3::uuid
       OR (length($4) >= 8 AND right(c.change_id::text, 8) = right($4, 8)
           AND replace(c.change_id::text, '-', '') LIKE '%' || $4))
     ORDER BY c.seq DESC LIMIT 10`,
    [workspaceId, range[0], range[1], hex],
  );
  return rows.map((r) => ({ changeId: r.change_id, shortId: r.short_id, at: r.at.toISOString() }));
}

/** The workspace's changes, newest first, older than `before` when given (a change of this workspace). */
export async function listChanges(
  db: Queryable,
  workspaceId: string,
  options: { before?: string; limit: number; idPrefix?: [string, string] },
): Promise<Change[]> {
  const params: unknown[] = [workspaceId, options.limit];
  let where = '';
  if (options.before !== undefined) {
    params.push(options.before);
    where += ` AND c.seq < (SELECT b.seq FROM expense_internal.changes b WHERE b.change_id = $${params.length} AND b.workspace_id = $1)`;
  }
  if (options.idPrefix !== undefined) {
    params.push(...options.idPrefix);
    where += ` AND c.change_id BETWEEN $${params.length - 1}::uuid AND $${params.length}::uuid`;
  }
  const { rows } = await db.query<ChangeRecord>(
    `${SELECT_CHANGES} WHERE c.workspace_id = $1 AND ${GROUP_HEAD}${where} ORDER BY c.seq DESC LIMIT $2`,
    params,
  );
  const [changes, rowsOf] = await Promise.all([
    withGroups(db, workspaceId, rows),
    previews(
      db,
      rows.map((r) => r.change_id),
    ),
  ]);
  return changes.map((c) => ({ ...c, preview: rowsOf.get(c.changeId) ?? [] }));
}

/** One change of the workspace, or undefined (another workspace's change is not found either). */
export async function findChange(
  db: Queryable,
  workspaceId: string,
  changeId: string,
): Promise<Change | undefined> {
  const { rows } = await db.query<ChangeRecord>(
    `${SELECT_CHANGES} WHERE c.workspace_id = $1 AND c.change_id = $2`,
    [workspaceId, changeId],
  );
  return rows[0] && (await withGroups(db, workspaceId, [rows[0]]))[0];
}

interface RowRecord {
  table_name: string;
  row_key: Record<string, unknown>;
  before_image: Record<string, unknown> | null;
  after_image: Record<string, unknown> | null;
}

const toRow = (r: RowRecord): ChangeRow => ({
  table: r.table_name,
  key: r.row_key,
  before: r.before_image,
  after: r.after_image,
});

/**
 * Where each reading of row images comes from: the two images (as the history shows them: before, after) and the
 * source (a table or a set-returning function of the change, with its order). Constant SQL only; the id is $1.
 */
const IMAGES = {
  /** Every row image the change recorded, in the order written. */
  recorded: ['before_image', 'after_image', 'expense_internal.change_rows WHERE change_id = $1 ORDER BY seq'],
  /** The rows no longer as the change left them (change_conflicts locks the others). */
  conflicts: ['expected', 'current', 'expense_internal.change_conflicts($1)'],
  /** What a revert does per row: before = the change's after image (as the row is now), after = its before. */
  revert: [
    'after_image',
    'before_image',
    'expense_internal.change_net_rows($1) ORDER BY table_name, row_key::text',
  ],
} as const;

async function rowImages(db: Queryable, changeId: string, which: keyof typeof IMAGES): Promise<ChangeRow[]> {
  const [before, after, source] = IMAGES[which];
  const { rows } = await db.query<RowRecord>(
    `SELECT table_name, expense_internal.change_image_out(row_key) AS row_key,
            expense_internal.change_image_out(${before}) AS before_image,
            expense_internal.change_image_out(${after}) AS after_image
     FROM ${source}`,
    [changeId],
  );
  return rows.map(toRow);
}

/** Every row image the change recorded, in the order written. */
export const changeRows = (db: Queryable, changeId: string) => rowImages(db, changeId, 'recorded');

/** The rows of a change that are no longer as it left them (locks the others, in the caller's transaction). */
export const changeConflicts = (tx: Queryable, changeId: string) => rowImages(tx, changeId, 'conflicts');

/** What a revert does per row: before = the change's after image (as the row is now), after = its before. */
export const revertRows = (tx: Queryable, changeId: string) => rowImages(tx, changeId, 'revert');

export async function purgeChanges(db: Queryable, batch: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT expense_internal.purge_changes($1) AS n', [batch]);
  return Number(rows[0]?.n ?? 0);
}

/** Writes the configured bounds of every workspace's history (the database applies them at each write). */
export async function setHistoryLimits(
  db: Queryable,
  limits: { maxBytes: number; maxChanges: number },
): Promise<void> {
  await db.query('UPDATE expense_internal.change_history_limits SET max_bytes = $1, max_changes = $2', [
    limits.maxBytes,
    limits.maxChanges,
  ]);
}

/** What the bound dropped from a workspace's history, and whether a change id is older than that. */
export interface DroppedHistory {
  droppedChanges: number;
  droppedThrough: string;
  /** The id is time-ordered and no newer than the newest dropped change. */
  idWasDropped: boolean;
}

export async function droppedHistory(
  db: Queryable,
  workspaceId: string,
  changeId: string | undefined,
): Promise<DroppedHistory | undefined> {
  const { rows } = await db.query<{
    dropped_changes: string;
    dropped_through: Date;
    dropped: boolean | null;
  }>(
    `SELECT dropped_changes, dropped_through,
            expense_internal.uuid_v7_time($2::uuid) <= dropped_through AS dropped
     FROM expense_internal.change_usage WHERE workspace_id = $1 AND dropped_through IS NOT NULL`,
    [workspaceId, changeId ?? null],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    droppedChanges: Number(row.dropped_changes),
    droppedThrough: row.dropped_through.toISOString(),
    idWasDropped: row.dropped === true,
  };
}
