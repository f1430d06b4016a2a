import { z } from 'zod';

/*
 * A workspace's data leaving and coming back (issue 40): the export document's header, the query of
 * GET /workspaces/{id}/export, the restore's query and answer, and the typed confirmations of the deletions.
 * The document itself is described in docs/export-format.md.
 */

/** The `format` field of every export document (and of the CSV zip's manifest). */
export const EXPORT_FORMAT = 'expense-export';
/** The version this build writes; restore reads this version and refuses a newer one. */
export const EXPORT_VERSION = 1;

/** The relations of a workspace an export carries, in the order they are written and restored. */
export const EXPORT_RELATIONS = [
  'workspace_settings',
  'account_metadata',
  'budget_lines',
  'ledger_entries',
] as const;
export type ExportRelation = (typeof EXPORT_RELATIONS)[number];

export const ExportQuerySchema = z.object({
  format: z
    .enum(['json', 'csv'])
    .optional()
    .describe(
      'json (default): one versioned document; csv: a zip of one CSV per relation and a manifest.json',
    ),
});
export type ExportQuery = z.infer<typeof ExportQuerySchema>;

export const RestoreQuerySchema = z.object({
  replace: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      "true: delete the workspace's data first (in the same change) instead of refusing a non-empty one",
    ),
});

/** A row of a relation as exported: its columns by SQL name (workspace_id left out), values as JSON. */
const ExportRowSchema = z.record(z.string(), z.unknown());

/** The export document restore reads (the fields it uses; the history and the trailer are not restored). */
export const ExportDocumentSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.number().int().min(1),
  exportedAt: z.string().optional(),
  workspace: z.object({ workspaceId: z.string(), name: z.string() }).loose(),
  workspace_settings: z.array(ExportRowSchema).max(1),
  account_metadata: z.array(ExportRowSchema),
  budget_lines: z.array(ExportRowSchema),
  ledger_entries: z.array(ExportRowSchema),
  changes: z.array(z.unknown()).optional(),
  change_rows: z.array(z.unknown()).optional(),
  end: z.unknown().optional(),
});
export type ExportDocument = z.infer<typeof ExportDocumentSchema>;

export const RestoreDataSchema = z.object({
  workspaceId: z.string(),
  changeId: z
    .string()
    .nullable()
    .describe('The change of the history that holds the restore (null: nothing written)'),
  shortId: z
    .string()
    .optional()
    .describe("The restore's change's short id, as GET /changes, the console and the CLI show it"),
  restored: z.record(z.string(), z.number().int()).describe('Rows written per relation'),
  replaced: z.boolean(),
  newIds: z.number().int().describe('Rows whose id was taken on this server and got a new one'),
});
export type RestoreData = z.infer<typeof RestoreDataSchema>;

/** DELETE /workspaces/{id}: the workspace's name, typed again. */
export const DeleteWorkspaceBodySchema = z.strictObject({
  confirmName: z.string().describe("The workspace's name exactly: the deletion is final"),
});

/** DELETE /me: the account's e-mail address, typed again. */
export const DeleteAccountBodySchema = z.strictObject({
  confirmEmail: z.string().describe("The account's e-mail address (any case): the deletion is final"),
});
