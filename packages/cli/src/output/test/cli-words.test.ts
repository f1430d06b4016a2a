import { CLI_ERRORS, DIALECT_WORDS, GUARD_ERROR, HTTP_ERRORS } from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { SqlRejected } from '../../commands/shared.js';
import { CliError, cliError, ExitCode, notSignedIn, usageError } from '../../errors.js';
import { ApiError } from '../../http/api-error.js';
import { cancelled } from '../../prompt/prompt.js';
import { createColours } from '../colour.js';
import { errorView, renderError } from '../render-error.js';

const plain = createColours(false);
/** An API error as the server answers it: its situation (variant, facts) in details. */
const apiError = (status: number, code: string, hint?: string, details?: Record<string, unknown>) =>
  new ApiError(
    status,
    { code, message: 'm', ...(hint ? { hint } : {}), ...(details ? { details } : {}) },
    [],
    undefined,
    undefined,
  );
const hintLines = (error: unknown) =>
  renderError(error, plain)
    .split('\n')
    .filter((l) => l.startsWith('hint:'));

describe('the CLI words of a server error', () => {
  it("shows the catalogue's CLI hint of the situation, by code and variant", () => {
    expect(hintLines(apiError(400, 'sql_execution_failed', HTTP_ERRORS.sql_execution_failed.hint))).toEqual([
      `hint: ${HTTP_ERRORS.sql_execution_failed.cliHint}`,
    ]);
    const revert = HTTP_ERRORS.sql_execution_failed.variants.revert;
    expect(hintLines(apiError(400, 'sql_execution_failed', revert.hint, { variant: 'revert' }))).toEqual([
      `hint: ${revert.cliHint}`,
    ]);
    expect(hintLines(apiError(400, 'syntax_error', GUARD_ERROR.hint))).toEqual([
      `hint: ${GUARD_ERROR.cliHint}`,
    ]);
    expect(hintLines(apiError(400, 'missing_workspace', HTTP_ERRORS.missing_workspace.hint))[0]).toContain(
      '`expense use <workspace>`',
    );
  });

  it('names commands for the routes of a SQL refusal, by its variant', () => {
    const [read] = hintLines(
      apiError(400, 'statement_kind_mismatch', DIALECT_WORDS.read, { variant: 'execute_read' }),
    );
    expect(read).toBe('hint: run reads with `expense query`');
    const [write] = hintLines(
      apiError(400, 'statement_kind_mismatch', DIALECT_WORDS.write, {
        variant: 'query_write',
        facts: { kind: 'INSERT' },
      }),
    );
    expect(write).toContain('`expense exec`');
    const refusals = [
      apiError(400, 'statement_kind_mismatch', DIALECT_WORDS.mixed, { variant: 'execute_mixed' }),
      apiError(400, 'multiple_statements_not_allowed', DIALECT_WORDS.oneStatement, {
        variant: 'query',
        facts: { count: 2 },
      }),
    ];
    for (const refusal of refusals) expect(hintLines(refusal)[0]).not.toMatch(/\/sql/);
  });

  it("shows the catalogue's CLI message of a situation whose message names a route; --json keeps the server's", () => {
    const refusal = new ApiError(
      400,
      {
        code: 'statement_kind_mismatch',
        message: `${DIALECT_WORDS.modes.query} takes a read; this is INSERT.`,
        hint: DIALECT_WORDS.write,
        details: { variant: 'query_write', facts: { kind: 'INSERT' } },
      },
      [],
      undefined,
      undefined,
    );
    const [first] = renderError(refusal, plain).split('\n');
    expect(first).toBe('error: `expense query` takes a read; this is INSERT. (statement_kind_mismatch)');
    expect(errorView(refusal).message).toBe('/sql/query takes a read; this is INSERT.');
    const large = new ApiError(
      413,
      {
        code: 'import_too_large',
        message: 'The file is 11534336 bytes; POST /v1/imports reads at most 10485760 (10 MiB).',
        details: { variant: 'declared_length', facts: { length: 11534336, limit: 10485760 } },
      },
      [],
      undefined,
      undefined,
    );
    expect(renderError(large, plain)).not.toMatch(/POST \//);
    // A message the catalogue has no CLI words for is shown as answered.
    expect(renderError(apiError(400, 'sql_execution_failed'), plain).split('\n')[0]).toBe(
      'error: m (sql_execution_failed)',
    );
  });

  it('gives a write over the row cap one hint, the batching pattern, also when the SQL was rejected', () => {
    const entry = HTTP_ERRORS.mutation_row_limit_exceeded;
    const error = apiError(400, 'mutation_row_limit_exceeded', entry.hint);
    for (const shown of [error, new SqlRejected(error, 'UPDATE t SET a = 1')]) {
      const lines = hintLines(shown);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/run it again until it affects 0 rows\.$/);
    }
  });

  it("keeps the server's words in --json, and a hint the catalogue does not know as it came", () => {
    const error = apiError(400, 'sql_execution_failed', HTTP_ERRORS.sql_execution_failed.hint);
    expect(errorView(error).hint).toBe(HTTP_ERRORS.sql_execution_failed.hint);
    expect(hintLines(apiError(418, 'something_new', 'Do the new thing.'))).toEqual([
      'hint: Do the new thing.',
    ]);
  });

  it("shows the CLI's own errors with their own hint", () => {
    expect(hintLines(usageError('No SQL given.', 'Pass it as an argument.'))).toEqual([
      'hint: Pass it as an argument.',
    ]);
  });
});

describe("the CLI's own codes in the catalogue", () => {
  it('keep the exit codes of cli.md', () => {
    expect(ExitCode).toEqual({
      ok: 0,
      failure: 1,
      usage: 2,
      declined: 3,
      notSignedIn: 4,
      sqlRejected: 5,
      truncated: 6,
    });
    expect(usageError('x').exitCode).toBe(2);
    expect(cancelled().exitCode).toBe(3);
    expect(notSignedIn().exitCode).toBe(4);
  });

  it("take their exit code, message and hint from their entry; a throw site's own texts win", () => {
    for (const code of Object.keys(CLI_ERRORS) as (keyof typeof CLI_ERRORS)[]) {
      const error = cliError(code);
      expect(error.exitCode, code).toBe(ExitCode[CLI_ERRORS[code].exit]);
      expect(error.message.length, code).toBeGreaterThan(0);
    }
    expect(notSignedIn()).toMatchObject({
      code: 'not_signed_in',
      message: CLI_ERRORS.not_signed_in.message,
      hint: CLI_ERRORS.not_signed_in.hint,
    });
    expect(cancelled().message).toBe(CLI_ERRORS.cancelled.message);
    expect(cliError('approval_required')).toMatchObject({
      message: 'This changes data and needs your approval; nothing was sent.',
      hint: 'Run it again with --yes to approve, or from a terminal to be asked.',
    });
    expect(cliError('member_not_found', { message: 'No member "x".' }).message).toBe('No member "x".');
    expect(new CliError('forbidden', 'm', ExitCode.failure).exitCode).toBe(1);
  });
});
