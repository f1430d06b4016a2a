import { randomUUID } from 'node:crypto';
import { ChangeSchema, type ExportDocument } from '@expense/wire';
import { z } from 'zod';
import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable } from '../../platform/storage/database.js';

/** Changes (headers) and row images per statement of a restore's history. */
const HISTORY_BATCH = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = z.string().regex(UUID, 'not a UUID');
const image = z.record(z.string(), z.unknown()).nullable();

/** A change as the export writes it (reader.ts CHANGE_COLUMNS); endpoint and statements as the history answers them. */
const ExportedChangeSchema = z.object({
  change_id: uuid,
  at: z.string(),
  endpoint: ChangeSchema.shape.endpoint,
  sql: z.string(),
  statements: ChangeSchema.shape.statements,
  reverts: uuid.nullable().optional(),
  user_id: uuid.nullable().optional(),
  email: z.string().nullable().optional(),
  connection_id: uuid.nullable().optional(),
});
type ExportedChange = z.infer<typeof ExportedChangeSchema>;

/** The relations the history records, with their primary key columns (as migration 0017's triggers name them). */
const HISTORY_KEYS = {
  ledger_entries: ['entry_id'],
  budget_lines: ['line_id'],
  workspace_settings: ['workspace_id'],
  account_metadata: ['workspace_id', 'account_id'],
} as const;

const ExportedChangeRowSchema = z
  .object({
    change_id: uuid,
    table: z.enum(Object.keys(HISTORY_KEYS) as [keyof typeof HISTORY_KEYS]),
    key: z.record(z.string(), z.unknown()),
    before: image,
    after: image,
  })
  .refine((r) => r.before !== null || r.after !== null, 'a row image pair without either image');

/** Ids restore replaces per relation: old id (lower case) -> new id. */
export interface IdMaps {
  ledger_entries: Map<string, string>;
  budget_lines: Map<string, string>;
}

function invalid(what: string, index: number, error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const where = issue?.path.length ? `.${issue.path.join('.')}` : '';
  return new ApiError(
    'invalid_request',
    `This is not an export document: ${what}[${index}]${where}: ${issue?.message ?? 'invalid'}.`,
    { variant: 'export_document', details: { relation: what, index } },
  );
}

/** A database refusal of the history's values (a time that is not one): invalid_request naming the array. */
function refusedHistory(what: string) {
  return (error: unknown): never => {
    const e = error as { code?: string; message?: string };
    if (typeof e.code === 'string' && /^(22|23)/.test(e.code)) {
      throw new ApiError(
        'invalid_request',
        `${what}: a value was refused by the database: ${e.message ?? e.code}.`,
        {
          variant: 'export_document',
          details: { relation: what, sqlstate: e.code },
        },
      );
    }
    throw error;
  };
}

/**
 * The ids of entries and budget lines (of the rows and of the history's images) that another workspace on this
 * server holds: restore gives them new ones, in the rows and in the images alike, so that the restored history
 * names the restored rows (and never another workspace's). The target's own rows do not count (a replace deletes
 * them first).
 */
export async function takenIds(
  tx: Queryable,
  document: ExportDocument,
  workspaceId: string,
): Promise<IdMaps> {
  const maps: IdMaps = { ledger_entries: new Map(), budget_lines: new Map() };
  const columns = { ledger_entries: 'entry_id', budget_lines: 'line_id' } as const;
  for (const relation of ['ledger_entries', 'budget_lines'] as const) {
    const column = columns[relation];
    const ids = new Set<string>();
    const add = (value: unknown) => {
      if (typeof value === 'string' && UUID.test(value)) ids.add(value.toLowerCase());
    };
    for (const row of document[relation]) add(row[column]);
    for (const row of document.change_rows ?? []) {
      const r = row as { table?: unknown; before?: Record<string, unknown>; after?: Record<string, unknown> };
      if (r.table !== relation) continue;
      add(r.before?.[column]);
      add(r.after?.[column]);
    }
    const all = [...ids];
    for (let i = 0; i < all.length; i += 10_000) {
      const { rows } = await tx.query<{ id: string }>(
        `SELECT x::text AS id FROM unnest(string_to_array($1, ',')::uuid[]) AS x
         WHERE EXISTS (SELECT 1 FROM public.${relation} t WHERE t.${column} = x AND t.workspace_id <> $2)`,
        [all.slice(i, i + 10_000).join(','), workspaceId],
      );
      for (const { id } of rows) maps[relation].set(id, randomUUID());
    }
  }
  return maps;
}

/** Gives the rows of a relation their new ids (in place); how many got one. */
export function applyIds(rows: Record<string, unknown>[], column: string, map: Map<string, string>): number {
  let n = 0;
  for (const row of rows) {
    const id = row[column];
    const to = typeof id === 'string' ? map.get(id.toLowerCase()) : undefined;
    if (to !== undefined) {
      row[column] = to;
      n++;
    }
  }
  return n;
}

/** A version-7 UUID with the milliseconds of `t` (as migration 0020's uuid_v7() makes with the clock). */
const uuidV7At = (t: string) => `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send(floor(extract(epoch FROM ${t}) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1),
    'hex')::uuid`;

/** A row image of the export as the target's: its workspace, and the new id of an entry or line that got one. */
const targetImage = (img: string) => `CASE WHEN ${img} IS NULL OR jsonb_typeof(${img}) = 'null' THEN NULL
  ELSE ${img} || jsonb_build_object('workspace_id', $2::uuid)
    || CASE WHEN x.t = 'ledger_entries' AND $4::jsonb ? lower(${img} ->> 'entry_id')
            THEN jsonb_build_object('entry_id', $4::jsonb -> lower(${img} ->> 'entry_id'))
            WHEN x.t = 'budget_lines' AND $5::jsonb ? lower(${img} ->> 'line_id')
            THEN jsonb_build_object('line_id', $5::jsonb -> lower(${img} ->> 'line_id'))
            ELSE '{}'::jsonb END END`;

const KEY_COLUMNS = `CASE x.t ${Object.entries(HISTORY_KEYS)
  .map(([t, keys]) => `WHEN '${t}' THEN ARRAY[${keys.map((k) => `'${k}'`).join(', ')}]`)
  .join(' ')} END`;

export interface HistoryTarget {
  workspaceId: string;
  /** The restore's own change: kept by the bound's trim, and newer than every restored change. */
  restoreChangeId: string;
  /** The JSON text of each element of change_rows as sent (exact numbers); else they are written from the parse. */
  changeRowTexts?: string[];
  ids: IdMaps;
}

/**
 * Replays the export's change history into the target workspace's, in the caller's owner transaction, before the
 * restore writes a row (so that every restored change is older than the restore's own, by `seq`). Each change
 * keeps its time, endpoint, SQL, statements and row images, oldest first, under a new id (UUID version 7 of its
 * time: change ids are unique on the whole server, and the original may still be here); `reverts` names the new
 * id of the change it reverted (null when that one is not in the export). The actor's user id is kept only where
 * a user of this server has that id and the exported e-mail (a document cannot name or probe other accounts),
 * its key only where it is that user's. The images are the target's (its workspace id, the rows' new ids), so a
 * restored change reverts like the original. Changes older than 90 days are left out (the purge would drop them);
 * the workspace's history bound applies as at every write (trim_changes). Returns how many changes and row
 * images were written.
 */
export async function restoreHistory(
  tx: Queryable,
  document: ExportDocument,
  target: HistoryTarget,
): Promise<{ changes: number; changeRows: number }> {
  const exported = (document.changes ?? []).map((c, i) => {
    const parsed = ExportedChangeSchema.safeParse(c);
    if (!parsed.success) throw invalid('changes', i, parsed.error);
    return parsed.data;
  });
  const rowList = document.change_rows ?? [];
  const known = new Set(exported.map((c) => c.change_id.toLowerCase()));
  if (known.size !== exported.length) {
    throw new ApiError('invalid_request', 'This is not an export document: changes: a change_id twice.', {
      variant: 'export_document',
      details: { relation: 'changes' },
    });
  }
  rowList.forEach((r, i) => {
    const parsed = ExportedChangeRowSchema.safeParse(r);
    if (!parsed.success) throw invalid('change_rows', i, parsed.error);
    if (!known.has(parsed.data.change_id.toLowerCase())) {
      throw invalid(
        'change_rows',
        i,
        new z.ZodError([
          { code: 'custom', path: ['change_id'], message: 'names no change of `changes`', input: r },
        ]),
      );
    }
  });
  const texts = target.changeRowTexts;
  if (texts !== undefined && texts.length !== rowList.length) {
    throw new ApiError('invalid_request', 'This is not an export document: change_rows could not be read.', {
      variant: 'export_document',
      details: { relation: 'change_rows' },
    });
  }
  if (exported.length === 0) return { changes: 0, changeRows: 0 };
  const { workspaceId } = target;
  await tx.query('SELECT expense_internal.lock_change_usage($1)', [workspaceId]);

  // New ids from the changes' times, and which are past the 90 days.
  const newIds = new Map<string, string>();
  const kept: (ExportedChange & { id: string })[] = [];
  for (let i = 0; i < exported.length; i += HISTORY_BATCH) {
    const batch = exported.slice(i, i + HISTORY_BATCH);
    const { rows } = await tx
      .query<{ id: string; expired: boolean }>(
        `SELECT ${uuidV7At('a.at::timestamptz')}::text AS id, a.at::timestamptz < now() - interval '90 days' AS expired
         FROM json_array_elements_text($1::json) WITH ORDINALITY AS a(at, n) ORDER BY a.n`,
        [JSON.stringify(batch.map((c) => c.at))],
      )
      .catch(refusedHistory('changes'));
    batch.forEach((c, j) => {
      const row = rows[j]!;
      if (row.expired) return;
      newIds.set(c.change_id.toLowerCase(), row.id);
      kept.push({ ...c, id: row.id });
    });
  }
  for (let i = 0; i < kept.length; i += HISTORY_BATCH) {
    const batch = kept.slice(i, i + HISTORY_BATCH).map((c) => ({
      id: c.id,
      at: c.at,
      endpoint: c.endpoint,
      sql: c.sql,
      statements: c.statements,
      reverts: c.reverts ? (newIds.get(c.reverts.toLowerCase()) ?? null) : null,
      user_id: c.user_id ?? null,
      email: c.email ?? null,
      connection_id: c.connection_id ?? null,
    }));
    await tx
      .query(
        `INSERT INTO expense_internal.changes
           (change_id, workspace_id, user_id, connection_id, endpoint, sql_text, reverts, statements, at)
         SELECT (e.v ->> 'id')::uuid, $2::uuid, u.user_id, k.connection_id, e.v ->> 'endpoint', e.v ->> 'sql',
                (e.v ->> 'reverts')::uuid, (e.v -> 'statements')::jsonb, (e.v ->> 'at')::timestamptz
         FROM json_array_elements($1::json) WITH ORDINALITY AS e(v, n)
         LEFT JOIN LATERAL (SELECT u.user_id FROM expense_internal.users u
                            WHERE u.user_id = (e.v ->> 'user_id')::uuid AND lower(u.email) = lower(e.v ->> 'email')) u ON true
         LEFT JOIN LATERAL (SELECT k.connection_id FROM expense_internal.api_keys k
                            WHERE k.connection_id = (e.v ->> 'connection_id')::uuid AND k.user_id = u.user_id) k ON true
         ORDER BY e.n`,
        [JSON.stringify(batch), workspaceId],
      )
      .catch(refusedHistory('changes'));
  }

  const changeMap = JSON.stringify(Object.fromEntries(newIds));
  const entryMap = JSON.stringify(Object.fromEntries(target.ids.ledger_entries));
  const lineMap = JSON.stringify(Object.fromEntries(target.ids.budget_lines));
  let changeRows = 0;
  for (let i = 0; i < rowList.length; i += HISTORY_BATCH) {
    const batch = texts
      ? `[${texts.slice(i, i + HISTORY_BATCH).join(',')}]`
      : JSON.stringify(rowList.slice(i, i + HISTORY_BATCH));
    const result = await tx
      .query(
        `INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
         SELECT y.change_id, y.t, expense_internal.change_row_key(coalesce(y.a, y.b), y.keys), y.b, y.a
         FROM (
           SELECT x.change_id, x.t, x.n, ${KEY_COLUMNS} AS keys,
                  ${targetImage('x.before')} AS b, ${targetImage('x.after')} AS a
           FROM (SELECT ($3::jsonb ->> lower(e.v ->> 'change_id'))::uuid AS change_id, e.v ->> 'table' AS t,
                        e.v -> 'before' AS before, e.v -> 'after' AS after, e.n
                 FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(v, n)) x
           WHERE x.change_id IS NOT NULL
         ) y
         ORDER BY y.n`,
        [batch, workspaceId, changeMap, entryMap, lineMap],
      )
      .catch(refusedHistory('change_rows'));
    changeRows += result.rowCount ?? 0;
  }

  // Sized as migration 0020 sizes a change (its text, statements, keys and images), counted in the workspace's
  // usage, and trimmed to the bound as a write would be.
  const ids = [...newIds.values()].join(',');
  if (ids === '') return { changes: 0, changeRows };
  await tx.query(
    `WITH sized AS (
       UPDATE expense_internal.changes c
       SET bytes = octet_length(c.sql_text) + octet_length(c.statements::text)
         + coalesce((SELECT sum(octet_length(r.row_key::text) + coalesce(octet_length(r.before_image::text), 0)
                                + coalesce(octet_length(r.after_image::text), 0))
                     FROM expense_internal.change_rows r WHERE r.change_id = c.change_id), 0)
       WHERE c.change_id = ANY (string_to_array($2, ',')::uuid[])
       RETURNING c.bytes)
     INSERT INTO expense_internal.change_usage AS u (workspace_id, bytes, changes)
     SELECT $1, coalesce(sum(bytes), 0), count(*) FROM sized
     ON CONFLICT (workspace_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes, changes = u.changes + EXCLUDED.changes`,
    [workspaceId, ids],
  );
  await tx.query('SELECT expense_internal.trim_changes($1, $2)', [workspaceId, target.restoreChangeId]);
  return { changes: kept.length, changeRows };
}
