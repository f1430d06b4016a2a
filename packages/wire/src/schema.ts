import { z } from 'zod';

export const ClockSchema = z
  .object({
    now: z.string().describe("the server's time, ISO 8601 in UTC"),
    today: z.string().describe("today's date (YYYY-MM-DD) in the workspace's time zone"),
    timeZone: z
      .string()
      .describe(
        'the IANA name of that time zone (workspace_settings.timezone; UTC without one); SQL runs in it: TIMESTAMPTZ literals without offset are local midnight (write ts ranges with them; an index can use them, DATE bounds not), ts::date the local day, timestamps carry its offset',
      ),
  })
  .describe('What time it is, so that dates can be written as explicit literals and ranges');
export type Clock = z.infer<typeof ClockSchema>;

export const OperationSchema = z.enum(['SELECT', 'INSERT', 'UPDATE', 'DELETE']);
export type Operation = z.infer<typeof OperationSchema>;

export const ColumnSchema = z.object({
  name: z.string(),
  type: z.string(),
  nullable: z.boolean(),
  default: z.string().nullable(),
});
export type Column = z.infer<typeof ColumnSchema>;

export const RelationSchema = z.object({
  name: z.string(),
  kind: z.enum(['table', 'view']),
  scope: z.enum(['workspace', 'global']),
  operations: z.array(OperationSchema),
  columns: z.array(ColumnSchema),
  hints: z.array(z.string()),
});
export type Relation = z.infer<typeof RelationSchema>;

export const SqlLimitsSchema = z.object({
  maxReturnedRows: z.number().int(),
  maxAffectedRows: z.number().int(),
  deadlineMs: z.number().int(),
  maxResultBytes: z.number().int().describe('the returned rows as JSON text, all statements together'),
});
export type SqlLimits = z.infer<typeof SqlLimitsSchema>;

export const SchemaLimitsSchema = SqlLimitsSchema.extend({
  maxSqlLength: z.number().int(),
  maxStatements: z.number().int(),
  requestsPerSecond: z.number().int(),
  requestsPerDay: z.number().int(),
  workspaceNameMaxLength: z.number().int(),
});
export type SchemaLimits = z.infer<typeof SchemaLimitsSchema>;

export const SchemaDataSchema = z.object({
  relations: z.array(RelationSchema),
  functions: z.array(z.string()),
  rules: z.array(z.string()),
  limits: SchemaLimitsSchema,
  clock: ClockSchema,
});
export type SchemaData = z.infer<typeof SchemaDataSchema>;
