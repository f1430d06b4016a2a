// Issue 39, item 5: answers that end loops instead of starting them. A dry run of a statement that would change every
// row of a relation in the workspace, or more than half of them, says so (data.warnings and the first instruction,
// which the MCP `execute` tool relays as a note to tell the user); a read says nothing about commits. On PGlite and
// PostgreSQL.

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, httpClient } from '../../mcp/test/helpers.js';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from './setup.js';

describe.each(ENGINES)('dry-run warnings and read-only answers on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  const post = (path: string, body: Record<string, unknown>) =>
    live.request('POST', path, { key: user.apiKey, body });
  const dryRun = async (path: string, sql: string) => {
    const res = await post(path, { sql, dryRun: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.committed).toBe(false);
    return res.body;
  };

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
    const seeded = await post(routePath(API_ROUTES.sqlExecute), {
      sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
        (TIMESTAMPTZ '2026-05-01 12:00:00+00', 'checking', -1, 'EUR', 'spend', 'food'),
        (TIMESTAMPTZ '2026-05-02 12:00:00+00', 'checking', -2, 'EUR', 'spend', 'food'),
        (TIMESTAMPTZ '2026-05-03 12:00:00+00', 'checking', -3, 'EUR', 'spend', 'food'),
        (TIMESTAMPTZ '2026-05-04 12:00:00+00', 'checking', -4, 'EUR', 'spend', 'rent')`,
    });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
  });
  afterAll(async () => live?.close());

  it('warns that a DELETE without WHERE empties the relation', async () => {
    const body = await dryRun(routePath(API_ROUTES.sqlExecute), 'DELETE FROM ledger_entries');
    expect(body.data.warnings).toEqual([
      {
        code: 'every_row',
        statementIndex: 0,
        relation: 'ledger_entries',
        command: 'DELETE',
        affectedRows: 4,
        relationRows: 4,
      },
    ]);
    expect(body.instructions[0]).toMatch(
      /^Warning: statement 1 would delete every row of ledger_entries in this workspace \(4 of 4\): it empties the relation\./,
    );
    // The dry run rolled back: the rows are all there.
    const count = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT count(*) AS n FROM ledger_entries',
    });
    expect(count.body.data.statements[0].rows).toEqual([{ n: '4' }]);
  });

  it('warns of an UPDATE of more than half the rows, and not of half or fewer', async () => {
    const most = await dryRun(
      routePath(API_ROUTES.sqlExecute),
      "UPDATE ledger_entries SET note = 'x' WHERE category = 'food'",
    );
    expect(most.data.warnings).toMatchObject([{ code: 'most_rows', affectedRows: 3, relationRows: 4 }]);
    expect(most.instructions[0]).toMatch(/would update 3 of the 4 rows of ledger_entries .*more than half/);
    const half = await dryRun(
      routePath(API_ROUTES.sqlExecute),
      "UPDATE ledger_entries SET note = 'x' WHERE amount <= -3",
    );
    expect(half.data.warnings).toBeUndefined();
    expect(half.instructions.join(' ')).not.toMatch(/Warning/);
  });

  it("counts a script's relation as it was before the request, and leaves workspace_settings out", async () => {
    const body = await dryRun(
      routePath(API_ROUTES.sqlScript),
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category)
         VALUES (TIMESTAMPTZ '2026-05-05 12:00:00+00', 'checking', -5, 'EUR', 'spend', 'new');
       DELETE FROM ledger_entries WHERE category <> 'new';
       UPDATE workspace_settings SET timezone = 'Europe/Berlin'`,
    );
    expect(body.data.warnings).toEqual([
      {
        code: 'every_row',
        statementIndex: 1,
        relation: 'ledger_entries',
        command: 'DELETE',
        affectedRows: 4,
        relationRows: 4,
      },
    ]);
    expect(body.instructions[0]).toMatch(/^Warning: statement 2 would delete every row of ledger_entries/);
  });

  it('relays the warning through the MCP execute tool as a note to tell the user', async () => {
    const client = await httpClient(live, user.apiKey, 'inject');
    try {
      const result = await call(client, 'execute', { sql: 'DELETE FROM ledger_entries' });
      expect(result.isError).not.toBe(true);
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      expect(text).toMatch(
        /Note \(tell the user\): Warning: statement 1 would delete every row of ledger_entries/,
      );
    } finally {
      await client.close();
    }
  });

  it('says nothing about commits in the answer of a read, a query or a script of SELECTs', async () => {
    const query = await post(routePath(API_ROUTES.sqlQuery), {
      sql: 'SELECT count(*) AS n FROM ledger_entries',
    });
    expect(query.status).toBe(200);
    expect(query.body.instructions.join(' ')).not.toMatch(/commit/i);
    expect(query.body.data.changeId).toBeUndefined();
    const script = await post(routePath(API_ROUTES.sqlScript), {
      sql: 'SELECT count(*) AS n FROM ledger_entries; SELECT count(*) AS m FROM budget_lines',
    });
    expect(script.status, JSON.stringify(script.body)).toBe(200);
    expect(script.body.instructions.join(' ')).not.toMatch(/commit/i);
    expect(script.body.data.changeId).toBeUndefined();
    expect(script.body.data.warnings).toBeUndefined();
    // A write still says it committed.
    const write = await post(routePath(API_ROUTES.sqlScript), {
      sql: "UPDATE ledger_entries SET note = 'y' WHERE amount = -1; SELECT 1 AS one",
    });
    expect(write.body.instructions.join(' ')).toMatch(/^Committed: every statement was applied/);
  });
});
