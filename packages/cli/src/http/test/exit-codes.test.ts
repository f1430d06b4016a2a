import { GUARD_ERROR_CODES } from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../errors.js';
import { parseRetryAfter } from '../client.js';
import { exitCodeForApiError } from '../exit-codes.js';

describe('exitCodeForApiError', () => {
  it('maps a missing, unknown or revoked key to 4', () => {
    expect(exitCodeForApiError(401, 'invalid_api_key')).toBe(ExitCode.notSignedIn);
    expect(exitCodeForApiError(401, 'missing_api_key')).toBe(ExitCode.notSignedIn);
  });
  it('maps every guard code and database rejections to 5', () => {
    for (const code of GUARD_ERROR_CODES) expect(exitCodeForApiError(400, code)).toBe(ExitCode.sqlRejected);
    expect(exitCodeForApiError(400, 'sql_execution_failed')).toBe(ExitCode.sqlRejected);
    expect(exitCodeForApiError(400, 'mutation_row_limit_exceeded')).toBe(ExitCode.sqlRejected);
  });
  it('maps the rest to 1', () => {
    for (const [status, code] of [
      [400, 'missing_workspace'],
      [404, 'workspace_not_found'],
      [429, 'rate_limited'],
      [500, 'internal_error'],
      [504, 'deadline_exceeded'],
    ] as const) {
      expect(exitCodeForApiError(status, code)).toBe(ExitCode.failure);
    }
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
