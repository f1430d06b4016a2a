// Issue 41, item 4 (migration 0052): a category is matched ignoring case on every write path (SQL, imports,
// the console all write through SQL): the spelling the workspace already has wins; a change of case of a row's
// own category is kept; a revert restores rows as they were, spelling included.
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

describe.each(ENGINES)('category spelling on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const sql = async (path: string, text: string) => {
    const res = await live.request('POST', path, { key: user.apiKey, body: { sql: text } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  const entry = (category: string, note: string) =>
    `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-01-05', 'cat', -1, 'USD', 'spend', '${category}', '${note}')`;
  const categoryOf = async (note: string) =>
    (await sql(routePath(API_ROUTES.sqlQuery), `SELECT category FROM ledger_entries WHERE note = '${note}'`))
      .statements[0].rows[0]?.category;

  it('gives a new entry or budget line the spelling the workspace has, also within one statement', async () => {
    await sql(routePath(API_ROUTES.sqlExecute), entry('Groceries', 'first'));
    await sql(routePath(API_ROUTES.sqlExecute), entry('groceries', 'second'));
    expect(await categoryOf('second')).toBe('Groceries');
    await sql(
      routePath(API_ROUTES.sqlExecute),
      "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-01-01', 'spend', 'GROCERIES', 'USD', 400)",
    );
    const lines = await sql(routePath(API_ROUTES.sqlQuery), 'SELECT category FROM budget_lines');
    expect(lines.statements[0].rows).toEqual([{ category: 'Groceries' }]);
    // Two spellings of a new category in one statement: the first row's wins.
    await sql(
      routePath(API_ROUTES.sqlExecute),
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-01-06', 'cat', -1, 'USD', 'spend', 'Coffee', 'c1'), ('2026-01-06', 'cat', -1, 'USD', 'spend', 'COFFEE', 'c2')",
    );
    expect([await categoryOf('c1'), await categoryOf('c2')]).toEqual(['Coffee', 'Coffee']);
  });

  it('moves an entry into an existing category by its spelling, keeps a change of case, and reverts exactly', async () => {
    await sql(
      routePath(API_ROUTES.sqlExecute),
      "UPDATE ledger_entries SET category = 'GROCERIES' WHERE note = 'c1'",
    );
    expect(await categoryOf('c1')).toBe('Groceries');
    const respelt = await sql(
      routePath(API_ROUTES.sqlScript),
      "UPDATE ledger_entries SET category = 'groceries' WHERE category = 'Groceries'; UPDATE budget_lines SET category = 'groceries' WHERE category = 'Groceries'",
    );
    expect(await categoryOf('first')).toBe('groceries');
    expect(await categoryOf('c1')).toBe('groceries');
    const reverted = await call(live, API_ROUTES.revertChange, {
      params: { changeId: respelt.changeId },
      key: user.apiKey,
    });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect([await categoryOf('first'), await categoryOf('second'), await categoryOf('c1')]).toEqual([
      'Groceries',
      'Groceries',
      'Groceries',
    ]);
  });
});
