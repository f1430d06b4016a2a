import { describe, expect, it } from 'vitest';
import { MCP_ERRORS, mcpNextStep } from '../src/error-catalog.js';
import {
  ERROR_CODES,
  errorEntry,
  GUARD_ERROR_CODES,
  HTTP_ERRORS,
  resolveError,
  statusOf,
} from '../src/index.js';

// The status table of the HTTP API, as published (docs/api.md): the catalogue may not move a code.
const PUBLISHED: Record<number, string[]> = {
  400: [
    'invalid_request',
    'invalid_email',
    'invalid_label',
    'invalid_code',
    'expired_code',
    'invalid_otp_session',
    'invalid_workspace_name',
    'missing_workspace',
    'mutation_row_limit_exceeded',
    'sql_execution_failed',
    'result_too_large',
    'confirmation_invalid',
    'confirmation_expired',
    'confirmation_mismatch',
    'import_unreadable',
    'import_ambiguous_sign',
    'import_unbalanced',
    ...GUARD_ERROR_CODES,
  ],
  401: ['missing_api_key', 'invalid_api_key'],
  403: ['forbidden'],
  404: ['not_found', 'workspace_not_found'],
  405: ['method_not_allowed'],
  408: ['request_timeout'],
  409: [
    'idempotency_key_reused',
    'last_owner',
    'change_conflict',
    'limit_reached',
    'confirmation_used',
    'workspace_not_empty',
    'ambiguous_change_id',
    'workspace_name_taken',
  ],
  413: ['payload_too_large', 'import_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited', 'too_many_concurrent_requests'],
  500: ['internal_error', 'mutation_outcome_unknown'],
  503: ['database_unavailable'],
  504: ['deadline_exceeded'],
};

describe('the error catalogue', () => {
  it('has exactly the published codes, each with its published status', () => {
    const published = Object.entries(PUBLISHED).flatMap(([status, codes]) =>
      codes.map((code) => [code, Number(status)] as const),
    );
    expect([...ERROR_CODES].sort()).toEqual(published.map(([code]) => code).sort());
    for (const [code, status] of published) expect(statusOf(code as never), code).toBe(status);
  });

  it('gives every code and every variant a message and a hint, and no two the same hint', () => {
    for (const code of ERROR_CODES) {
      const entry = errorEntry(code);
      expect(entry.message.length, code).toBeGreaterThan(0);
      expect(entry.hint.length, code).toBeGreaterThan(0);
      for (const [name, variant] of Object.entries(entry.variants ?? {})) {
        // A variant says something of its own: its hint, actions, retryability, or a message naming a route.
        expect(
          variant.hint ?? variant.actions ?? variant.retryable ?? variant.message,
          `${code}.${name}`,
        ).toBeDefined();
        expect(variant.hint, `${code}.${name}`).not.toBe(entry.hint);
      }
    }
    const hints = Object.values(HTTP_ERRORS).flatMap((e) => [
      e.hint,
      ...Object.values((e as { variants?: Record<string, { hint?: string }> }).variants ?? {}).flatMap((v) =>
        v.hint ? [v.hint] : [],
      ),
    ]);
    const repeated = hints.filter((h, i) => hints.indexOf(h) !== i);
    expect(repeated).toEqual([]);
  });

  it('resolves a variant over its entry, and an unknown variant to the entry', () => {
    expect(resolveError('idempotency_key_reused', 'in_progress')).toMatchObject({
      status: 409,
      retryable: true,
      hint: expect.stringMatching(/same Idempotency-Key again/),
    });
    expect(resolveError('idempotency_key_reused').retryable).toBe(false);
    expect(resolveError('not_found', 'key').actions).toEqual(['list_keys']);
    expect(resolveError('not_found', 'nope').hint).toBe(HTTP_ERRORS.not_found.hint);
  });

  it('gives statement_too_complex an entry of its own: 400, how to rewrite, and the MCP next step', () => {
    expect(resolveError('statement_too_complex')).toMatchObject({
      status: 400,
      retryable: false,
      hint: expect.stringMatching(/MATERIALIZED/),
    });
    expect(errorEntry('statement_too_complex').message).toMatch(/nothing was run/);
    expect(mcpNextStep({ code: 'statement_too_complex' }, 400)).toMatch(/repeated column once/);
    // The other guard codes keep the shared entry.
    expect(errorEntry('syntax_error')).toBe(errorEntry('column_not_allowed'));
  });

  it('holds the MCP layer own codes, none of which is an API code', () => {
    for (const code of Object.keys(MCP_ERRORS)) expect(ERROR_CODES as readonly string[]).not.toContain(code);
    expect(MCP_ERRORS.confirmation_declined.message).toMatch(/declined/);
    expect(HTTP_ERRORS.confirmation_mismatch.message).toMatch(/other SQL or another workspace/);
  });

  it('names the next MCP step from the entry, then from retryability and status', () => {
    expect(mcpNextStep({ code: 'workspace_not_found' }, 404)).toMatch(/list_workspaces/);
    expect(mcpNextStep({ code: 'mutation_outcome_unknown' }, 500)).toMatch(/call execute again/);
    expect(mcpNextStep({ code: 'mutation_outcome_unknown' }, 500, 'revert')).toMatch(/call revert again/);
    expect(mcpNextStep({ code: 'database_unavailable', retryable: true }, 503)).toMatch(/Wait a moment/);
    expect(mcpNextStep({ code: 'syntax_error' }, 400)).toMatch(/Fix the SQL/);
    expect(mcpNextStep({ code: 'invalid_request' }, 400)).toMatch(/Fix the arguments/);
    expect(mcpNextStep({ code: 'forbidden' }, 403)).toBe('Report the error to the user.');
    expect(mcpNextStep({ code: 'something_new' }, 418)).toBe('Report the error to the user.');
  });
});
