// Whether the change history and the data agree, read from the database as its owner: every stored change has
// its row images (as many as its statements counted), no image outlives its change, and for every row a change
// touched, the newest image of it is the row as it is now (absent for a deleted row), so that no committed row
// change lacks its record. Used by the SIGKILL fault scenario and its vitest twin.
import type { Database } from '../src/platform/storage/database.js';

export interface HistoryAgreement {
  changes: number;
  rowImages: number;
  /** Changes whose images are missing or fewer than their statements counted. */
  changesWithoutRows: number;
  /** Images whose change is missing. */
  orphanImages: number;
  /** Rows (present or deleted) whose newest image is not the row as it is now. */
  rowsDisagreeing: number;
  /** Rows carrying the marker that no change ever recorded. */
  rowsWithoutChange: number;
  /** Workspaces whose recorded history total (migration 0020) differs from what is stored. */
  usageMismatches: number;
}

/** `marker`: a prefix of the event ids the scenario wrote (its changes' SQL contains it). */
export async function historyAgreement(db: Database, marker: string): Promise<HistoryAgreement> {
  return db.transaction(async (tx) => {
    await tx.query(`SET LOCAL TimeZone = 'UTC'`);
    const like = `%${marker}%`;
    const one = async (sql: string, params: unknown[] = [like]) =>
      Number((await tx.query<{ n: string }>(sql, params)).rows[0]!.n);
    const changes = await one(`SELECT count(*) AS n FROM expense_internal.changes WHERE sql_text LIKE $1`);
    const rowImages = await one(
      `SELECT count(*) AS n FROM expense_internal.change_rows r JOIN expense_internal.changes c USING (change_id)
       WHERE c.sql_text LIKE $1`,
    );
    const changesWithoutRows = await one(
      `SELECT count(*) AS n FROM expense_internal.changes c
       WHERE c.sql_text LIKE $1
         AND (SELECT count(*) FROM expense_internal.change_rows r WHERE r.change_id = c.change_id)
             < greatest(1, (SELECT coalesce(sum((s ->> 'rowCount')::int), 0) FROM jsonb_array_elements(c.statements) s))`,
    );
    const orphanImages = await one(
      `SELECT count(*) AS n FROM expense_internal.change_rows r
       WHERE NOT EXISTS (SELECT 1 FROM expense_internal.changes c WHERE c.change_id = r.change_id)`,
      [],
    );
    const rowsDisagreeing = await one(
      `WITH newest AS (
         SELECT DISTINCT ON (r.row_key) r.row_key, r.after_image
         FROM expense_internal.change_rows r JOIN expense_internal.changes c USING (change_id)
         WHERE c.sql_text LIKE $1 AND r.table_name = 'ledger_entries'
         ORDER BY r.row_key, c.seq DESC, r.seq DESC
       )
       SELECT count(*) AS n FROM newest
       LEFT JOIN public.ledger_entries e ON e.entry_id = (newest.row_key ->> 'entry_id')::uuid
       WHERE (e.entry_id IS NULL) <> (newest.after_image IS NULL)
          OR (e.entry_id IS NOT NULL AND to_jsonb(e) <> newest.after_image)`,
    );
    const rowsWithoutChange = await one(
      `SELECT count(*) AS n FROM public.ledger_entries e
       WHERE e.event_id LIKE $1
         AND NOT EXISTS (SELECT 1 FROM expense_internal.change_rows r
                         WHERE r.table_name = 'ledger_entries' AND r.row_key = jsonb_build_object('entry_id', e.entry_id))`,
    );
    const usageMismatches = await one(
      `SELECT count(*) AS n FROM expense_internal.change_usage u
       LEFT JOIN (SELECT workspace_id, sum(bytes) AS bytes, count(*) AS changes
                  FROM expense_internal.changes GROUP BY workspace_id) AS c USING (workspace_id)
       WHERE u.bytes <> coalesce(c.bytes, 0) OR u.changes <> coalesce(c.changes, 0)`,
      [],
    );
    return {
      changes,
      rowImages,
      changesWithoutRows,
      orphanImages,
      rowsDisagreeing,
      rowsWithoutChange,
      usageMismatches,
    };
  });
}
