import type { Action, SqlResultData } from '@expense/wire';
import {
  array,
  boolean,
  type Check,
  fromValidator,
  int,
  literal,
  object,
  oneOf,
  optional,
  record,
  string,
  unknown,
  type Validator,
  validator,
} from './check.js';

/**
 * The wire's envelope and SQL result (packages/wire/src/envelope.ts, sql.ts, schema.ts) as hand-written checks:
 * every call goes through the envelope and `expense query` through the SQL result, so neither loads zod
 * (test/wire-checks.test.ts holds them to the wire's schemas).
 */

/** `ActionSchema`. */
export const action: Check<Action> = object({
  name: string,
  method: oneOf(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: string,
  urlTemplate: optional(string),
  auth: oneOf(['none', 'ApiKey']),
  input: optional(record(unknown)),
});

/** The error envelope as the client reads it: an unknown code from a newer server still parses. */
export const failureEnvelope = validator(
  object({
    ok: literal(false),
    error: object({
      code: string,
      message: string,
      hint: optional(string),
      retryable: optional(boolean),
      details: optional(record(unknown)),
    }),
    actions: optional(array(action)),
  }),
);

/** `successEnvelope(data)`. */
export function successEnvelope<T>(data: Validator<T> | undefined): Validator<{
  ok: true;
  data: T;
  instructions: string[];
  actions: Action[];
}> {
  const checkData = data ? fromValidator(data) : (unknown as Check<T>);
  return validator(
    object({
      ok: literal(true),
      data: checkData,
      instructions: array(string),
      actions: array(action),
    }),
  );
}

const statementResult = object({
  index: int,
  command: oneOf(['SELECT', 'INSERT', 'UPDATE', 'DELETE']),
  columns: array(object({ name: string, type: string })),
  rows: array(record(unknown)),
  rowCount: int,
  returnedRowCount: int,
  totalRowCount: int,
  truncated: boolean,
});

/** `SqlResultDataSchema`. */
export const sqlResultData: Validator<SqlResultData> = validator(
  object({
    workspaceId: string,
    committed: boolean,
    statements: array(statementResult),
    limits: object({ maxReturnedRows: int, maxAffectedRows: int, deadlineMs: int, maxResultBytes: int }),
    clock: object({ now: string, today: string, timeZone: string }),
    changeId: optional(string),
    confirmToken: optional(string),
    confirmTokenExpiresAt: optional(string),
  }),
);
