import type { Action, SqlResultData } from '@expense/wire';
import {
  array,
  boolean,
  type Check,
  fromValidator,
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
import { checkOf, type JsonSchema } from './json-schema.js';
import SQL_RESULT_SCHEMA from './sql-result.schema.json';

/**
 * The wire's envelope (packages/wire/src/envelope.ts) as hand-written checks, and its SQL result as a check built
 * from a projection generated from the wire's schema: every call goes through the envelope and `expense query`
 * through the SQL result, so neither loads zod (test/wire-checks.test.ts holds them to the wire's schemas and
 * regenerates sql-result.schema.json with EXPENSE_WRITE_PROJECTIONS=1).
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

/** `SqlResultDataSchema`, from its generated JSON Schema (sql-result.schema.json). */
export const sqlResultData = validator(checkOf(SQL_RESULT_SCHEMA as JsonSchema)) as Validator<SqlResultData>;
