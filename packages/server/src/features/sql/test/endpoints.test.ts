import { routePath } from '@expense/test-kit';
import { API_ROUTES, HTTP_ERRORS } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  insertEntries,
  type Live,
  startLive,
  startWithWorkspace,
  type TestUser,
} from './setup.js';

describe.each(ENGINES)('the SQL endpoints on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}, key = user.apiKey) =>
    live.request('POST', path, { key, body, headers });
  const count = async (ws = workspaceId) =>
    Number(
      (
        await live.db.query<{ n: string }>(
          'SELECT count(*) AS n FROM public.ledger_entries WHERE workspace_id = $1',
          [ws],
        )
      ).rows[0]?.n,
    );

  it('uses the only workspace and saves it for the key', async () => {
    const res = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT count(*) AS n FROM ledger_entries',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.workspaceId).toBe(workspaceId);
    const saved = await live.db.query<{ s: string }>(
      'SELECT selected_workspace_id AS s FROM expense_internal.api_keys WHERE connection_id = $1',
      [user.connectionId],
    );
    expect(saved.rows[0]?.s).toBe(workspaceId);
  });

  it('answers the result shape of http-api.md, with the limits', async () => {
    const inserted = await post(routePath(API_ROUTES.sqlExecute), {
      sql: `${insertEntries(2, 'shape')} RETURNING account_id, amount`,
    });
    expect(inserted.status).toBe(200);
    expect(inserted.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(inserted.body).toMatchObject({
      ok: true,
      data: {
        workspaceId,
        committed: true,
        statements: [
          {
            index: 0,
            command: 'INSERT',
            columns: [
              { name: 'account_id', type: 'text' },
              { name: 'amount', type: 'numeric' },
            ],
            rows: [
              { account_id: 'shape', amount: '1' },
              { account_id: 'shape', amount: '2' },
            ],
            rowCount: 2,
            returnedRowCount: 2,
            totalRowCount: 2,
            truncated: false,
          },
        ],
        limits: { maxReturnedRows: 100, maxAffectedRows: 100, deadlineMs: 25_000, maxResultBytes: 4_194_304 },
      },
    });
    const read = await post(routePath(API_ROUTES.sqlQuery), {
      sql: "SELECT sum(amount) AS total FROM ledger_entries WHERE account_id = 'shape'",
    });
    expect(read.body.data.statements).toEqual([
      {
        index: 0,
        command: 'SELECT',
        columns: [{ name: 'total', type: 'numeric' }],
        rows: [{ total: '3' }],
        rowCount: 1,
        returnedRowCount: 1,
        totalRowCount: 1,
        truncated: false,
      },
    ]);
    expect(read.headers.get('x-request-id')).toMatch(/^req_/);
    expect(read.headers.get('ratelimit-policy')).toBe('"burst";q=100000;w=1, "daily";q=1000000;w=86400');
    expect(read.headers.get('ratelimit')).toMatch(/^"burst";r=\d+;t=\d+$/);
  });

  it('returns at most 100 rows per statement with the exact total', async () => {
    await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(100, 'many') });
    await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(30, 'many', 101) });
    const res = await post(routePath(API_ROUTES.sqlQuery), {
      sql: "SELECT amount FROM ledger_entries WHERE account_id = 'many' ORDER BY amount",
    });
    const [s] = res.body.data.statements;
    expect(s).toMatchObject({ rowCount: 130, returnedRowCount: 100, totalRowCount: 130, truncated: true });
    expect(s.rows).toHaveLength(100);
    expect(s.rows[99]).toEqual({ amount: '100' });
    expect(res.body.instructions.join(' ')).toMatch(/LIMIT/);
  });

  it('refuses a mutation over 100 rows and changes nothing', async () => {
    const before = await count();
    const res = await post(routePath(API_ROUTES.sqlExecute), {
      sql: "UPDATE ledger_entries SET note = 'x' WHERE account_id = 'many'",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'mutation_row_limit_exceeded',
      // The catalogue's hint (which every client knows in its own words), not the guard's.
      hint: HTTP_ERRORS.mutation_row_limit_exceeded.hint,
      details: { affectedRows: 130, maxAffectedRows: 100, scope: 'statement' },
    });
    const script = await post(routePath(API_ROUTES.sqlScript), {
      sql: `${insertEntries(60, 'limit')}; ${insertEntries(60, 'limit', 61)}`,
    });
    expect(script.body.error).toMatchObject({
      code: 'mutation_row_limit_exceeded',
      details: { scope: 'request' },
    });
    expect(await count()).toBe(before);
    const notes = await live.db.query("SELECT 1 FROM public.ledger_entries WHERE note = 'x'");
    expect(notes.rows).toHaveLength(0);
  });

  it('runs /sql/query in a READ ONLY transaction and only reads', async () => {
    const write = await post(routePath(API_ROUTES.sqlQuery), { sql: insertEntries(1, 'ro') });
    expect(write.status).toBe(400);
    expect(write.body.error.code).toBe('statement_kind_mismatch');
    const read = await post(routePath(API_ROUTES.sqlExecute), { sql: 'SELECT 1' });
    expect(read.body.error.code).toBe('statement_kind_mismatch');
  });

  it('applies a script atomically: a failing second statement leaves nothing', async () => {
    const before = await count();
    const res = await post(routePath(API_ROUTES.sqlScript), {
      sql: `${insertEntries(3, 'atomic')};\nINSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'atomic', 1, 'euro', 'spend')`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'sql_execution_failed',
      details: { sqlstate: '23514', statementIndex: 1, constraint: 'ledger_entries_currency_check' },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/expense_internal|cursor|pg_stat/);
    expect(await count()).toBe(before);
    const ok = await post(routePath(API_ROUTES.sqlScript), {
      sql: `${insertEntries(1, 'atomic')}; SELECT count(*) AS n FROM ledger_entries WHERE account_id = 'atomic'`,
    });
    expect(ok.body.data.statements.map((s: { command: string }) => s.command)).toEqual(['INSERT', 'SELECT']);
    expect(ok.body.data.statements[1].rows).toEqual([{ n: '1' }]);
    expect(await count()).toBe(before + 1);
  });

  it('reports PostgreSQL errors with SQLSTATE and a line/column position', async () => {
    const res = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT\n  amount / 0 AS x\nFROM ledger_entries',
    });
    if (res.body.ok) return; // an empty table divides nothing; make sure there are rows
    expect(res.body.error.code).toBe('sql_execution_failed');
    // Every name resolves before anything runs (an unknown column is the guard's column_not_allowed), so the
    // database's own error here is an ambiguous name: a column of both relations.
    const ambiguous = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT note\nFROM ledger_entries, budget_lines',
    });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toMatchObject({
      code: 'sql_execution_failed',
      retryable: false,
      details: { sqlstate: '42702', position: { line: 1, column: 8 } },
    });
    expect(ambiguous.body.error.message).toMatch(/note/);
    const missing = await post(routePath(API_ROUTES.sqlQuery), { sql: 'SELECT nope\nFROM ledger_entries' });
    expect(missing.body.error).toMatchObject({
      code: 'column_not_allowed',
      details: { position: { line: 1, column: 8 } },
    });
  });

  it('answers guard refusals as 400 with message, hint and position, and runs nothing', async () => {
    const res = await post(routePath(API_ROUTES.sqlExecute), { sql: `${insertEntries(1, 'guard')} -- note` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('comment_not_allowed');
    expect(res.body.error.hint).toEqual(expect.any(String));
    expect(res.body.error.details.position).toMatchObject({ line: 1, column: expect.any(Number) });
    const syntax = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT amount\nFROM FROM ledger_entries',
    });
    expect(syntax.body.error).toMatchObject({ code: 'syntax_error', details: { position: { line: 2 } } });
    const rows = await live.db.query("SELECT 1 FROM public.ledger_entries WHERE account_id = 'guard'");
    expect(rows.rows).toHaveLength(0);
  });

  it('dryRun runs, reports and rolls back', async () => {
    const before = await count();
    for (const path of [routePath(API_ROUTES.sqlExecute), routePath(API_ROUTES.sqlScript)]) {
      const res = await post(path, { sql: `${insertEntries(4, 'dry')} RETURNING amount`, dryRun: true });
      expect(res.status).toBe(200);
      expect(res.body.data.committed).toBe(false);
      expect(res.body.data.statements[0]).toMatchObject({ command: 'INSERT', rowCount: 4 });
    }
    expect(await count()).toBe(before);
  });

  it('refuses bad input with a coded 4xx and runs nothing', async () => {
    const before = await count();
    const key = user.apiKey;
    const cases: [string, Parameters<Live['request']>[2], number, string][] = [
      [
        'malformed JSON',
        { key, rawBody: '{"sql": ', headers: { 'content-type': 'application/json' } },
        400,
        'invalid_request',
      ],
      ['missing sql', { key, body: {} }, 400, 'invalid_request'],
      ['non-string sql', { key, body: { sql: 42 } }, 400, 'invalid_request'],
      ['unknown field', { key, body: { sql: insertEntries(1, 'bad'), force: true } }, 400, 'invalid_request'],
      [
        'dryRun not boolean',
        { key, body: { sql: insertEntries(1, 'bad'), dryRun: 'yes' } },
        400,
        'invalid_request',
      ],
      [
        'text/plain',
        {
          key,
          rawBody: JSON.stringify({ sql: insertEntries(1, 'bad') }),
          headers: { 'content-type': 'text/plain' },
        },
        415,
        'unsupported_media_type',
      ],
      ['over 1 MiB', { key, body: { sql: `SELECT 1 ${' '.repeat(1024 * 1024)}` } }, 413, 'payload_too_large'],
      ['NUL byte', { key, body: { sql: `${insertEntries(1, 'bad')}\u0000` } }, 400, 'invalid_request'],
      [
        'over 100,000 characters',
        { key, body: { sql: `${insertEntries(1, 'bad')}${' '.repeat(100_000)}` } },
        400,
        'sql_too_long',
      ],
      ['no key', { body: { sql: insertEntries(1, 'bad') } }, 401, 'missing_api_key'],
    ];
    for (const [name, options, status, code] of cases) {
      const res = await live.request('POST', routePath(API_ROUTES.sqlExecute), options);
      expect({ name, status: res.status, code: res.body?.error?.code }).toEqual({ name, status, code });
      expect(res.body.ok).toBe(false);
    }
    const query = await post(routePath(API_ROUTES.sqlQuery), { sql: 'SELECT 1 AS one', dryRun: true });
    expect(query.body.error.code).toBe('invalid_request');
    expect(await count()).toBe(before);
  });
});

describe.each(ENGINES)('workspace resolution on $name', (engine) => {
  let live: Live;
  beforeAll(async () => {
    live = await startLive(engine);
  });
  afterAll(async () => live?.close());

  it('follows X-Workspace-Id, the saved workspace, the only one, or asks', async () => {
    const user = await createUser(live.db);
    const none = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS x' },
    });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'missing_workspace', details: { workspaces: [] } });
    expect(none.body.actions.map((a: { name: string }) => a.name)).toContain('create_workspace');

    const first = await addWorkspace(live.db, user.userId, 'First');
    const second = await addWorkspace(live.db, user.userId, 'Second');
    const ambiguous = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS x' },
    });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error.code).toBe('missing_workspace');
    expect(
      ambiguous.body.error.details.workspaces.map((w: { workspaceId: string }) => w.workspaceId).sort(),
    ).toEqual([first, second].sort());
    const select = ambiguous.body.actions.filter((a: { name: string }) => a.name === 'select_workspace');
    expect(select).toHaveLength(2);
    expect(select[0].url).toMatch(/\/v1\/workspaces\/[0-9a-f-]+\/select$/);

    const byHeader = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS x' },
      headers: { 'x-workspace-id': second },
    });
    expect(byHeader.body.data.workspaceId).toBe(second);

    const selected = await live.request(
      'POST',
      routePath(API_ROUTES.selectWorkspace, { workspaceId: first }),
      { key: user.apiKey },
    );
    expect(selected.status).toBe(200);
    const saved = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS x' },
    });
    expect(saved.body.data.workspaceId).toBe(first);
    const override = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT 1 AS x' },
      headers: { 'X-Workspace-Id': second.toUpperCase() },
    });
    expect(override.body.data.workspaceId).toBe(second);
  });

  it('answers 404 workspace_not_found for foreign, unknown and malformed ids alike', async () => {
    const user = await createUser(live.db);
    await addWorkspace(live.db, user.userId);
    const other = await createUser(live.db);
    const foreign = await addWorkspace(live.db, other.userId);
    const bodies = new Set<string>();
    for (const id of [foreign, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', "'; DROP TABLE x; --"]) {
      const res = await live.request('POST', routePath(API_ROUTES.sqlExecute), {
        key: user.apiKey,
        body: { sql: insertEntries(1, 'foreign') },
        headers: { 'x-workspace-id': id },
      });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('workspace_not_found');
      bodies.add(JSON.stringify(res.body.error));
    }
    expect(bodies.size).toBe(1);
    const rows = await live.db.query("SELECT 1 FROM public.ledger_entries WHERE account_id = 'foreign'");
    expect(rows.rows).toHaveLength(0);
  });
});
