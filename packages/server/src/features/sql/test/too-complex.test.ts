// Planner bombs (docs/security.md): a short SELECT whose every level references the previous level's column
// twice makes PostgreSQL build a tree that doubles per level, before any interrupt is checked. The guard refuses it
// with statement_too_complex before anything reaches the database, on both engines.

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, insertEntries, type Live, startWithWorkspace, type TestUser } from './setup.js';

/** SELECT s || s AS s FROM (<previous>) AS a, `levels` times over a column of ledger_entries. */
function doubling(levels: number): string {
  let q = 'SELECT note AS s FROM ledger_entries';
  for (let i = 0; i < levels; i++) q = `SELECT s || s AS s FROM (${q}) AS a`;
  return q;
}

describe.each(ENGINES)('statement_too_complex on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const post = (path: string, body: unknown) => live.request('POST', path, { key: user.apiKey, body });
  const count = async () =>
    Number(
      (
        await live.db.query<{ n: string }>(
          'SELECT count(*) AS n FROM public.ledger_entries WHERE workspace_id = $1',
          [workspaceId],
        )
      ).rows[0]?.n,
    );

  it('refuses the 20-level doubling SELECT with 400, the code, a message and a hint naming the derived table', async () => {
    const sql = doubling(20);
    expect(sql.length).toBeLessThan(750);
    const res = await post(routePath(API_ROUTES.sqlQuery), { sql });
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatchObject({
      code: 'statement_too_complex',
      retryable: false,
      message: expect.stringMatching(/expression nodes|bytes/),
      hint: expect.stringMatching(/\ba\b.*MATERIALIZED/),
      details: { position: { line: 1, column: expect.any(Number) } },
    });
    // The position is a reference to the repeated column.
    expect(sql.slice(res.body.error.details.position.offset).startsWith('s')).toBe(true);
  });

  it('refuses it in a script before its first statement runs: nothing is written', async () => {
    const before = await count();
    const res = await post(routePath(API_ROUTES.sqlScript), {
      sql: `${insertEntries(1, 'too-complex')}; ${doubling(20)}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'statement_too_complex', details: { statementIndex: 1 } });
    expect(await count()).toBe(before);
  });

  it('refuses the same bomb built from a long literal (issue 35: 2.77 GB at 11 levels), naming the literal and the column', async () => {
    let q = `SELECT '${'x'.repeat(90_000)}' AS s`;
    for (let i = 0; i < 11; i++) q = `SELECT s || s AS s FROM (${q}) AS a`;
    const res = await post(routePath(API_ROUTES.sqlQuery), { sql: q });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'statement_too_complex',
      message: expect.stringMatching(/bytes.*xxxxxxxxxxxxxxxx\.\.\. of 90000 bytes.*column a\.s/),
      hint: expect.stringMatching(/\ba\.s\b.*MATERIALIZED/),
    });
    // The position is the literal.
    expect(q.slice(res.body.error.details.position.offset).startsWith("'xxx")).toBe(true);
  });

  it('still answers a few levels of the same shape', async () => {
    await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'shallow') });
    const res = await post(routePath(API_ROUTES.sqlQuery), { sql: doubling(3) });
    expect(res.status).toBe(200);
    expect(res.body.data.statements[0].command).toBe('SELECT');
  });
});
