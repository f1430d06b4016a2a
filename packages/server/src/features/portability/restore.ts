import {
  EXPORT_RELATIONS,
  EXPORT_VERSION,
  type ExportDocument,
  ExportDocumentSchema,
  type ExportRelation,
  type RestoreData,
} from '@expense/wire';
import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable } from '../../platform/storage/database.js';
import { shortIdSelect } from '../changes/store.js';
import { GENERATED_IDS, quoteIdent, relationColumns } from './columns.js';
import { applyIds, restoreHistory, takenIds } from './history-restore.js';
import { lockWorkspaceRows } from './locks.js';

/** Rows per INSERT of a restore (one JSON parameter each). */
const RESTORE_BATCH_ROWS = 500;

/** Reads a request body as an export document; invalid_request (variant export_document) when it is not one. */
export function parseExportDocument(body: unknown): ExportDocument {
  const parsed = ExportDocumentSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new ApiError(
      'invalid_request',
      `This is not an export document: ${where}${issue?.message ?? 'invalid'}.`,
      {
        variant: 'export_document',
      },
    );
  }
  if (parsed.data.version > EXPORT_VERSION) {
    throw new ApiError(
      'invalid_request',
      `The export is of version ${parsed.data.version}; this server reads versions up to ${EXPORT_VERSION}.`,
      { variant: 'export_document', details: { version: parsed.data.version, readable: EXPORT_VERSION } },
    );
  }
  return parsed.data;
}

export interface RestoreTarget {
  workspaceId: string;
  userId: string;
  connectionId: string;
  replace: boolean;
  /** The JSON text of each element of the document's change_rows as sent (exact numbers; see raw-json.ts). */
  changeRowTexts?: string[];
}

/** Whether the workspace holds any row of its relations beyond its settings (which every workspace has). */
async function holdsData(tx: Queryable, workspaceId: string): Promise<boolean> {
  const { rows } = await tx.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM public.ledger_entries WHERE workspace_id = $1)
         OR EXISTS (SELECT 1 FROM public.budget_lines WHERE workspace_id = $1)
         OR EXISTS (SELECT 1 FROM public.account_metadata WHERE workspace_id = $1) AS any`,
    [workspaceId],
  );
  return rows[0]?.any === true;
}

/**
 * Loads an export into a workspace, in the caller's owner transaction, as one change of its history (endpoint
 * `restore`): the history's triggers record every row written, so the restore can be reverted like any write.
 * The export's own history is replayed first, older than that change (history-restore.ts).
 * A workspace that holds data is refused (workspace_not_empty) unless `replace`, which first deletes its rows
 * in the same change. Rows keep their ids unless another workspace on this server holds the id (a restore next
 * to the original): those get new ones, in the history's images too. Values are checked by the tables' own constraints.
 */
export async function restoreExport(
  tx: Queryable,
  document: ExportDocument,
  target: RestoreTarget,
): Promise<RestoreData> {
  const { workspaceId } = target;
  await lockWorkspaceRows(tx, workspaceId);
  const nonEmpty = await holdsData(tx, workspaceId);
  if (nonEmpty && !target.replace) {
    throw new ApiError('workspace_not_empty', undefined, { details: { workspaceId } });
  }
  const { rows: opened } = await tx.query<{ change_id: string }>(
    `SELECT set_config('expense.user_id', $1, true), set_config('expense.workspace_id', $2, true),
            expense_internal.begin_change('restore', $3, $4) AS change_id`,
    [
      target.userId,
      workspaceId,
      target.connectionId,
      `-- restore of the export of workspace "${document.workspace.name}"${document.exportedAt ? ` made ${document.exportedAt}` : ''}`,
    ],
  );
  const restoreChangeId = opened[0]?.change_id ?? '';
  // The history first: its changes are older than the restore's own, which the first row written records.
  const ids = await takenIds(tx, document, workspaceId);
  const history = await restoreHistory(tx, document, {
    workspaceId,
    restoreChangeId,
    ids,
    ...(target.changeRowTexts ? { changeRowTexts: target.changeRowTexts } : {}),
  });
  if (nonEmpty) {
    for (const relation of ['ledger_entries', 'budget_lines', 'account_metadata'] as const) {
      await tx.query(`DELETE FROM public.${quoteIdent(relation)} WHERE workspace_id = $1`, [workspaceId]);
    }
  }
  const restored: Record<string, number> = {};
  let newIds = applyIds(document.ledger_entries, 'entry_id', ids.ledger_entries);
  newIds += applyIds(document.budget_lines, 'line_id', ids.budget_lines);
  for (const relation of EXPORT_RELATIONS) {
    const rows = document[relation];
    const result = await restoreRelation(tx, relation, rows, workspaceId);
    restored[relation] = result.rows;
    newIds += result.newIds;
  }
  restored.changes = history.changes;
  restored.change_rows = history.changeRows;
  const written = EXPORT_RELATIONS.some((r) => (restored[r] ?? 0) > 0) || nonEmpty;
  const changeId = written ? restoreChangeId || null : null;
  // Its short id as GET /changes shows it, told apart from the replayed history's changes of the same minutes.
  const shortId = changeId
    ? (await tx.query<{ short_id: string }>(shortIdSelect(changeId))).rows[0]?.short_id
    : undefined;
  return {
    workspaceId,
    changeId,
    ...(shortId ? { shortId } : {}),
    restored,
    replaced: nonEmpty,
    newIds,
  };
}

async function restoreRelation(
  tx: Queryable,
  relation: ExportRelation,
  rows: Record<string, unknown>[],
  workspaceId: string,
): Promise<{ rows: number; newIds: number }> {
  if (rows.length === 0) return { rows: 0, newIds: 0 };
  const columns = (await relationColumns(tx, relation)).map((c) => c.name);
  const known = new Set(columns);
  const unknown = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new ApiError(
      'invalid_request',
      `${relation}: columns this server does not have: ${unknown.join(', ')}.`,
      {
        variant: 'export_document',
        details: { relation, columns: unknown },
      },
    );
  }
  const present = columns.filter((c) => rows.some((r) => Object.hasOwn(r, c)));
  const id = GENERATED_IDS[relation];
  const values = present.map((c) =>
    c === id
      ? `CASE WHEN r.${quoteIdent(c)} IS NULL OR EXISTS (SELECT 1 FROM public.${quoteIdent(relation)} x WHERE x.${quoteIdent(c)} = r.${quoteIdent(c)}) THEN gen_random_uuid() ELSE r.${quoteIdent(c)} END`
      : `r.${quoteIdent(c)}`,
  );
  let newIds = 0;
  for (let i = 0; i < rows.length; i += RESTORE_BATCH_ROWS) {
    const batch = rows.slice(i, i + RESTORE_BATCH_ROWS);
    if (id) {
      const { rows: taken } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM json_populate_recordset(NULL::public.${quoteIdent(relation)}, $1::json) r
         WHERE EXISTS (SELECT 1 FROM public.${quoteIdent(relation)} x WHERE x.${quoteIdent(id)} = r.${quoteIdent(id)})`,
        [JSON.stringify(batch)],
      );
      newIds += taken[0]?.n ?? 0;
    }
    const upsert =
      relation === 'workspace_settings'
        ? ` ON CONFLICT (workspace_id) DO UPDATE SET ${present.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`
        : '';
    await tx
      .query(
        `INSERT INTO public.${quoteIdent(relation)} (workspace_id, ${present.map(quoteIdent).join(', ')})
         SELECT $2::uuid, ${values.join(', ')}
         FROM json_populate_recordset(NULL::public.${quoteIdent(relation)}, $1::json) r${upsert}`,
        [JSON.stringify(batch), workspaceId],
      )
      .catch((error: unknown) => {
        throw refused(relation, error);
      });
  }
  return { rows: rows.length, newIds };
}

/** A row the database refused (a constraint, a value of the wrong type): invalid_request naming the relation. */
function refused(relation: string, error: unknown): unknown {
  const e = error as { code?: string; message?: string; constraint?: string; column?: string };
  if (typeof e.code === 'string' && /^(22|23)/.test(e.code)) {
    return new ApiError(
      'invalid_request',
      `${relation}: a row was refused by the database: ${e.message ?? e.code}.`,
      {
        variant: 'export_document',
        details: {
          relation,
          sqlstate: e.code,
          ...(e.constraint ? { constraint: e.constraint } : {}),
          ...(e.column ? { column: e.column } : {}),
        },
      },
    );
  }
  return error;
}
