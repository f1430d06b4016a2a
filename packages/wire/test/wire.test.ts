import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  FailureEnvelopeSchema,
  GUARD_ERROR_CODES,
  statusOf,
  successEnvelope,
  VerifyCodeBodySchema,
  WorkspaceNameSchema,
  WorkspacesDataSchema,
} from '../src/index.js';

describe('@expense/wire', () => {
  it('lists every error code once, guard codes included, each with a status', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of GUARD_ERROR_CODES) expect(ERROR_CODES).toContain(code);
    expect(statusOf('last_owner')).toBe(409);
    expect(statusOf('syntax_error')).toBe(400);
    expect(statusOf('database_unavailable')).toBe(503);
  });

  it('parses a failure envelope and rejects an unknown code', () => {
    const failure = {
      ok: false,
      error: { code: 'not_found', message: 'm', hint: 'h', retryable: false },
      instructions: [],
      actions: [{ name: 'discover', method: 'GET', url: 'http://x/v1/', auth: 'none' }],
    };
    expect(FailureEnvelopeSchema.parse(failure).error.code).toBe('not_found');
    expect(() =>
      FailureEnvelopeSchema.parse({ ...failure, error: { ...failure.error, code: 'nope' } }),
    ).toThrow();
  });

  it('wraps data in the success envelope', () => {
    const schema = successEnvelope(WorkspacesDataSchema);
    const ok = { ok: true, data: { workspaces: [] }, instructions: ['x'], actions: [] };
    expect(schema.parse(ok)).toEqual(ok);
    expect(() => schema.parse({ ...ok, ok: false })).toThrow();
  });

  it('validates bodies as the contract says', () => {
    expect(WorkspaceNameSchema.safeParse('   ').success).toBe(false);
    expect(WorkspaceNameSchema.safeParse('x'.repeat(101)).success).toBe(false);
    expect(WorkspaceNameSchema.safeParse('Household').success).toBe(true);
    const body = { code: '12345678', otpSessionToken: 't', label: 'laptop' };
    expect(VerifyCodeBodySchema.safeParse(body).success).toBe(true);
    expect(VerifyCodeBodySchema.safeParse({ ...body, code: '1234567' }).success).toBe(false);
  });
});
