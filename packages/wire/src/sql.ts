import { z } from 'zod';
import { ClockSchema, SqlLimitsSchema } from './schema.js';

export const SqlQueryBodySchema = z.object({ sql: z.string() });
export type SqlQueryBody = z.infer<typeof SqlQueryBodySchema>;

export const SqlExecuteBodySchema = z.object({
  sql: z.string(),
  dryRun: z.boolean().optional().describe('run, report, and roll back'),
  confirmToken: z
    .string()
    .optional()
    .describe(
      "A dry run's confirmToken: commits exactly this SQL in the dry run's workspace, once, on any server instance, within 10 minutes.",
    ),
});
export type SqlExecuteBody = z.infer<typeof SqlExecuteBodySchema>;

export const StatementResultSchema = z.object({
  index: z.number().int(),
  command: z.enum(['SELECT', 'INSERT', 'UPDATE', 'DELETE']),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.record(z.string(), z.unknown())),
  rowCount: z.number().int(),
  returnedRowCount: z.number().int(),
  totalRowCount: z.number().int(),
  truncated: z.boolean(),
});
export type StatementResult = z.infer<typeof StatementResultSchema>;

export const SqlWarningSchema = z
  .object({
    code: z
      .enum(['every_row', 'most_rows'])
      .describe(
        'every_row: the statement changes every row of the relation; most_rows: more than half of them',
      ),
    statementIndex: z.number().int(),
    relation: z.string(),
    command: z.enum(['UPDATE', 'DELETE']),
    affectedRows: z.number().int(),
    relationRows: z.number().int().describe("the relation's rows in this workspace before the request"),
  })
  .describe('A dry run of a statement that changes every row of a relation, or more than half of them');
export type SqlWarning = z.infer<typeof SqlWarningSchema>;

export const SqlResultDataSchema = z.object({
  workspaceId: z.string(),
  committed: z.boolean().describe('false for dryRun, which always rolls back'),
  statements: z.array(StatementResultSchema),
  limits: SqlLimitsSchema,
  clock: ClockSchema,
  changeId: z
    .string()
    .optional()
    .describe('a committed write: its entry in the change history (GET /changes/{changeId}, revert)'),
  shortId: z
    .string()
    .optional()
    .describe(
      "a committed write: its change's short id, as GET /changes, the console and the CLI show it (every change route takes it)",
    ),
  confirmToken: z
    .string()
    .optional()
    .describe('A dry run of a write: send it back with the same SQL (no dryRun) to commit it exactly once.'),
  confirmTokenExpiresAt: z.string().optional(),
  warnings: z
    .array(SqlWarningSchema)
    .optional()
    .describe(
      'A dry run only, when a statement would change every row of a relation or more than half of them',
    ),
});
export type SqlResultData = z.infer<typeof SqlResultDataSchema>;

/** Headers of the SQL endpoints. */
export const WORKSPACE_HEADER = 'X-Workspace-Id' as const;
export const IDEMPOTENCY_HEADER = 'Idempotency-Key' as const;
