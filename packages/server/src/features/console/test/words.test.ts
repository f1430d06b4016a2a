// The console's pages get the API's errors in a person's words: the error catalogue's console texts, put in by
// the console's proxy (docs/architecture.md, "Errors"); the API's own answers keep the HTTP words.

import { ENGINES, routePath } from '@expense/test-kit';
import { API_ROUTES, DIALECT_WORDS, HTTP_ERRORS, render } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, insertEntries } from '../../sql/test/setup.js';
import { inConsoleWords, signInHint, WORDS_MODULE } from '../words.js';
import { type ConsoleApp, consoleApp, ORIGIN } from './console-app.js';

const envelope = (error: Record<string, unknown>) => Buffer.from(JSON.stringify({ ok: false, error }));

describe('the console words of an API error', () => {
  it("gives the catalogue's console texts of the situation (its variant and facts in details)", () => {
    const missing = inConsoleWords(
      envelope({ code: 'missing_workspace', message: 'm', hint: HTTP_ERRORS.missing_workspace.hint }),
    );
    expect(JSON.parse(String(missing))).toEqual({
      ok: false,
      error: { code: 'missing_workspace', message: 'm', hint: HTTP_ERRORS.missing_workspace.consoleHint },
    });
    const refused = JSON.parse(
      String(
        inConsoleWords(
          envelope({
            code: 'statement_kind_mismatch',
            message: `${DIALECT_WORDS.modes.query} takes a read; this is INSERT.`,
            hint: DIALECT_WORDS.write,
            details: { position: { line: 1, column: 1 }, variant: 'query_write', facts: { kind: 'INSERT' } },
          }),
        ),
      ),
    ).error;
    expect(refused.message).toBe('“Run query” takes a read; this is INSERT.');
    expect(refused.hint).toBe('Use “Dry run write” for a statement that changes data');
    expect(refused.details).toEqual({
      position: { line: 1, column: 1 },
      variant: 'query_write',
      facts: { kind: 'INSERT' },
    });
  });

  it('leaves what is not an error envelope alone', () => {
    expect(inConsoleWords(Buffer.from('not json'))).toBeUndefined();
    expect(inConsoleWords(Buffer.from(JSON.stringify({ ok: true, data: {} })))).toBeUndefined();
  });

  it("words the sign-in pages' hints the same way", () => {
    expect(signInHint({ code: 'invalid_code', hint: HTTP_ERRORS.invalid_code.hint })).toBe(
      'Check the 8-digit code in the e-mail and type it again.',
    );
    expect(signInHint({ code: 'invalid_code', variant: 'void' })).toBe(
      HTTP_ERRORS.invalid_code.variants.void.hint,
    );
  });
});

describe("the import refusals' console words the console loads (words.js)", () => {
  type Words = typeof import('../../../../console/words.js');
  const load = () =>
    import(`data:text/javascript;base64,${Buffer.from(WORDS_MODULE).toString('base64')}`) as Promise<Words>;

  it('renders an import situation as the catalogue does for the console, and names no option or route', async () => {
    const { consoleWords, SITUATION_CODES } = await load();
    const situations: {
      code: string;
      variant?: string;
      facts?: Record<string, string | number>;
      message?: string;
    }[] = [
      { code: 'invalid_request', variant: 'import_account' },
      { code: 'invalid_request', variant: 'import_one_account', facts: { file: 'both.xml', count: 2 } },
      { code: 'invalid_request', variant: 'import_columns', facts: { missing: 'ts, amount' } },
      {
        code: 'invalid_request',
        variant: 'import_layout',
        message: 'x.csv: one column "a;b" (--delimiter?)',
      },
      { code: SITUATION_CODES.csv_syntax, variant: 'csv_syntax', message: 'x.csv:3: Quote not closed' },
      { code: SITUATION_CODES.rows_refused, variant: 'rows_refused', message: 'x.csv has 2 problems.' },
      { code: 'import_unbalanced', message: 'The balances differ by 3.00.' },
    ];
    for (const situation of situations) {
      const words = consoleWords(situation);
      expect(words, situation.variant).toEqual(render(situation, 'console'));
      expect(`${words?.message} ${words?.hint}`, situation.variant).not.toMatch(/--[a-z]|\/v1\/|\bPOST \//);
    }
    expect(SITUATION_CODES.csv_syntax).toBe('import_unreadable');
    expect(
      consoleWords({ code: 'invalid_request', variant: 'import_columns', facts: { missing: 'ts' } }),
    ).toEqual({
      message: 'No column of the file holds ts.',
      hint: "Choose which of the file's columns hold ts.",
    });
    expect(consoleWords({ code: 'something_else' })).toBeUndefined();
  });
});

describe.each(ENGINES)('the console proxy on $name', (engine) => {
  let served: ConsoleApp;

  beforeAll(async () => {
    served = await consoleApp(engine);
  });
  afterAll(async () => served?.close());

  it("answers the console's pages in a person's words, and the API in its own", async () => {
    const { app, db } = served;
    const user = await createUser(db);
    const workspaceId = await addWorkspace(db, user.userId);
    const { cookie } = await served.session(user.userId);
    const request = { sql: insertEntries(1) };
    const viaConsole = await app.inject({
      method: 'POST',
      url: '/console/api/sql/query',
      headers: {
        cookie,
        origin: ORIGIN,
        'x-workspace-id': workspaceId,
      },
      payload: request,
    });
    const direct = await app.inject({
      method: API_ROUTES.sqlQuery.method,
      url: routePath(API_ROUTES.sqlQuery),
      headers: { authorization: `ApiKey ${user.apiKey}`, 'x-workspace-id': workspaceId },
      payload: request,
    });
    expect(viaConsole.statusCode).toBe(400);
    expect(direct.statusCode).toBe(400);
    const person = viaConsole.json().error;
    const agent = direct.json().error;
    expect(person.code).toBe('statement_kind_mismatch');
    expect(agent.code).toBe('statement_kind_mismatch');
    expect(agent.hint).toContain('/sql/execute');
    expect(person.hint).toContain('“Dry run write”');
    expect(`${person.message} ${person.hint}`).not.toMatch(/\/sql|ask the user/i);

    const signedOut = await app.inject({
      method: 'GET',
      url: '/console/api/me',
      headers: { origin: ORIGIN },
    });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.json().error.hint).toBe('Your session has ended: sign in again.');
  });
});
