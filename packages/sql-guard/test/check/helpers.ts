import { expect } from 'vitest';
import { createGuard } from '../../src/index.js';
import type { CheckedStatement, GuardErrorCode, GuardViolation, Mode } from '../../src/types.js';

export const guard = await createGuard();

export function accepted(sql: string, mode: Mode = 'query'): CheckedStatement[] {
  const result = guard.check(sql, { mode });
  if (!result.ok)
    expect.fail(
      `expected acceptance of ${JSON.stringify(sql)} in ${mode} mode, got ${JSON.stringify(result.error)}`,
    );
  return result.statements;
}

export function rejected(sql: string, code: GuardErrorCode, mode: Mode = 'query'): GuardViolation {
  const result = guard.check(sql, { mode });
  if (result.ok)
    expect.fail(`expected ${code} for ${JSON.stringify(sql)} in ${mode} mode, but it was accepted`);
  expect(result.error.code, `${JSON.stringify(sql)}: ${result.error.message}`).toBe(code);
  expect(result.error.message.length).toBeGreaterThan(0);
  return result.error;
}

/** Asserts the violation's position is at the first occurrence of `needle` in `sql`. */
export function rejectedAt(
  sql: string,
  code: GuardErrorCode,
  needle: string,
  mode: Mode = 'query',
): GuardViolation {
  const error = rejected(sql, code, mode);
  const offset = sql.indexOf(needle);
  expect(offset, `needle ${needle} in ${sql}`).toBeGreaterThanOrEqual(0);
  const before = sql.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  expect(error.position).toEqual({ offset, line, column });
  return error;
}
