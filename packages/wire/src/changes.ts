import { z } from 'zod';

/** One statement-level write of a change: which relation, which command, how many rows. */
export const ChangeStatementSchema = z.object({
  table: z.string(),
  command: z.enum(['INSERT', 'UPDATE', 'DELETE']),
  rowCount: z.number().int(),
});

/**
 * A change group (the batches of one `expense import`, or the reverts of those): every write request that sends
 * the same X-Change-Group (a UUID the client makes) in a workspace joins it, labelled by X-Change-Label
 * (percent-encoded UTF-8, at most 200 characters decoded). Each request stays its own change within the
 * affected-row cap; the history lists the group as one entry.
 */
export const CHANGE_GROUP_HEADER = 'X-Change-Group' as const;
export const CHANGE_LABEL_HEADER = 'X-Change-Label' as const;
export const MAX_CHANGE_LABEL = 200;

/** What the history says of a group, on the entry that stands for it (its newest change). */
export const ChangeGroupSchema = z.object({
  groupId: z.string(),
  label: z.string().nullable(),
  changes: z.number().int().describe('How many changes (requests) the group has.'),
  rowCount: z.number().int().describe('Rows written by all its changes.'),
  reverted: z.number().int().describe('How many of its changes were reverted.'),
});
export type ChangeGroupSummary = z.infer<typeof ChangeGroupSchema>;

/** One change of a group, oldest first (GET /changes/{changeId} of the entry that stands for the group). */
export const ChangeMemberSchema = z.object({
  changeId: z.string(),
  rowCount: z.number().int(),
  revertedBy: z.string().optional(),
});
export type ChangeMember = z.infer<typeof ChangeMemberSchema>;

/** A row of a change as a person names it (the history's list): what happened to it, its date, words and amount. */
export const ChangePreviewRowSchema = z.object({
  table: z.string(),
  action: z.enum(['added', 'removed', 'changed']),
  date: z
    .string()
    .nullable()
    .describe("An entry's ts (ISO 8601, UTC) or a budget line's budget_month (YYYY-MM-DD)."),
  label: z
    .string()
    .nullable()
    .describe('Its counterparty, else its note, else its category, else its account (as the row is now).'),
  amount: z.string().nullable().describe('amount or planned_value, a decimal string.'),
  currency: z.string().nullable(),
});
export type ChangePreviewRow = z.infer<typeof ChangePreviewRowSchema>;

/** One recorded change: a committed write of the SQL endpoints, or a revert. */
export const ChangeSchema = z.object({
  changeId: z.string(),
  shortId: z
    .string()
    .describe(
      "The change's short id: the last 8 hex digits of changeId (12 when another change of the workspace ends in the same 8, else the whole id). Every route that takes a changeId takes it too, or a unique prefix.",
    ),
  at: z.string().describe('When the transaction started (ISO 8601, UTC).'),
  endpoint: z.enum(['execute', 'script', 'revert', 'restore']),
  sql: z.string(),
  statements: z.array(ChangeStatementSchema),
  by: z.object({
    userId: z.string().nullable(),
    email: z.string().nullable(),
    connectionId: z.string().nullable(),
    label: z.string().nullable(),
  }),
  reverts: z.string().optional().describe('The change this one reverted.'),
  revertedBy: z.string().optional().describe('The change that reverted this one.'),
  group: ChangeGroupSchema.optional().describe(
    'Set when the change belongs to a group: this entry stands for the whole group (its newest change).',
  ),
  preview: z
    .array(ChangePreviewRowSchema)
    .optional()
    .describe(
      "In the list: the entry's first 3 rows as a person names them (GET /changes/{changeId} has all).",
    ),
});
export type Change = z.infer<typeof ChangeSchema>;

/** A row of a change: its primary key and its image before and after (null: absent). */
export const ChangeRowSchema = z.object({
  table: z.string(),
  key: z.record(z.string(), z.unknown()),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});
export type ChangeRow = z.infer<typeof ChangeRowSchema>;

export const ChangesQuerySchema = z.object({
  before: z.string().optional().describe('A changeId: list the changes older than it.'),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('1 to 100 (default 20).'),
  idPrefix: z
    .string()
    .regex(/^[0-9a-fA-F-]{1,36}$/)
    .optional()
    .describe(
      'Only the entries whose changeId starts with these hex digits (to resolve a short id, as git does).',
    ),
});
export const ChangeParamsSchema = z.object({ changeId: z.string() });
export const ChangeRevertBodySchema = z.object({
  dryRun: z.boolean().optional(),
  confirmToken: z
    .string()
    .optional()
    .describe(
      "The dry run's confirmToken: the revert commits once, on any server instance, within 10 minutes.",
    ),
});

export const ChangesDataSchema = z.object({
  workspaceId: z.string(),
  timeZone: z
    .string()
    .optional()
    .describe("The workspace's time zone (workspace_settings.timezone), to show `at` in."),
  changes: z.array(ChangeSchema),
});
export type ChangesData = z.infer<typeof ChangesDataSchema>;
export const ChangeDataSchema = z.object({
  workspaceId: z.string(),
  timeZone: z.string().optional().describe("The workspace's time zone (workspace_settings.timezone)."),
  change: ChangeSchema,
  rows: z.array(ChangeRowSchema),
  members: z
    .array(ChangeMemberSchema)
    .optional()
    .describe('For a group: its changes, oldest first; revert them newest first, one request each.'),
});
export type ChangeData = z.infer<typeof ChangeDataSchema>;

/** The answer of a revert: the rows it restores (net per row), committed or a dry run. */
export const ChangeRevertDataSchema = z.object({
  workspaceId: z.string(),
  committed: z.boolean(),
  reverted: z.string().describe('The change that was (or would be) reverted.'),
  changeId: z.string().nullable().describe('The revert as a change of its own (null for a dry run).'),
  shortId: z
    .string()
    .optional()
    .describe("A committed revert: its change's short id, as GET /changes, the console and the CLI show it"),
  sql: z.string().describe('The inverse statements that ran.'),
  rows: z.array(ChangeRowSchema).describe('Per row: before = as it is now, after = as the revert leaves it.'),
  confirmToken: z.string().optional().describe('A dry run: send it back with the revert to commit it, once.'),
  confirmTokenExpiresAt: z.string().optional(),
});
export type ChangeRevertData = z.infer<typeof ChangeRevertDataSchema>;
