import { z } from 'zod';

/*
 * POST /v1/imports (issue 37): a bank file's bytes as the body, read by @expense/import's prepareImport on the
 * server; the answer is what the import would add, skip and refuse, and, committed, its one change.
 */

/** Largest file POST /v1/imports reads: 10 MiB (bigger exports go through `expense import`). */
export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;

/** Rows of `toAdd` an answer lists (the count is always whole). */
export const IMPORT_LISTED_ROWS = 100;

const flag = z.enum(['true', 'false']).optional();

export const ImportQuerySchema = z.object({
  account: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("The rows' account_id, for a file that names none (or to override what it names)"),
  dryRun: flag.describe(
    'true: read and check the file, insert nothing (the answer says what would be added)',
  ),
  chargesPositive: flag.describe(
    'true: a card file whose sign cannot be told writes its charges as positive numbers',
  ),
  chargesNegative: flag.describe(
    'true: a card file whose sign cannot be told writes its charges as negative numbers',
  ),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/)
    .optional()
    .describe(
      "ISO 4217: the rows' currency when the file gives none (default: the workspace's reporting currency)",
    ),
  name: z.string().max(200).optional().describe("The file's name, for messages and the change's label"),
  confirmToken: z
    .string()
    .optional()
    .describe(
      "A dry run's confirmToken: commits the same file in the same workspace once (the MCP tool's flow)",
    ),
});
export type ImportQuery = z.infer<typeof ImportQuerySchema>;

const LineReason = z.object({ line: z.number().int(), reason: z.string() });

export const ImportRowSchema = z.object({
  line: z.number().int(),
  ts: z.string(),
  account_id: z.string(),
  amount: z.string(),
  currency: z.string(),
  kind: z.string().nullable(),
  category: z.string().nullable(),
  counterparty: z.string().nullable(),
  note: z.string().nullable(),
  event_id: z.string().nullable(),
  external_id: z.string().nullable(),
});

export const ImportDataSchema = z.object({
  workspaceId: z.string(),
  format: z.string().describe('csv, ofx, qif, camt or mt940'),
  layout: z.string().nullable().describe("The bank's layout recognised (a CSV preset's name), or null"),
  account: z.string().nullable().describe('The account the rows go to (null when they name several)'),
  currency: z.string().nullable(),
  rows: z.object({
    add: z.number().int().describe('Rows the import adds (would add, in a dry run)'),
    skip: z.number().int().describe('Rows left out: not booked, balance lines, or already in the workspace'),
    refuse: z
      .number()
      .int()
      .describe('Rows refused (always 0 when the answer is a success: any refusal refuses the file)'),
  }),
  toAdd: z.array(ImportRowSchema).describe('The first 100 rows to add'),
  skipped: z.array(LineReason),
  refused: z.array(LineReason),
  reconciliation: z
    .object({ opening: z.string(), closing: z.string(), sum: z.string(), balanced: z.boolean() })
    .nullable(),
  notes: z.array(z.string()).describe('What the reader decided (layout, date order, signs), to relay'),
  committed: z.boolean(),
  changeId: z.string().optional().describe('The one change of the history the import is (revert undoes it)'),
  shortId: z
    .string()
    .optional()
    .describe(
      "The change's short id, as GET /changes, the console and the CLI show it (every change route takes it)",
    ),
  confirmToken: z.string().optional().describe('A dry run: commits the same file once, within 10 minutes'),
  confirmTokenExpiresAt: z.string().optional(),
});
export type ImportData = z.infer<typeof ImportDataSchema>;
