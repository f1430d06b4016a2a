// The value bounds of migration 0046 (issue 28, "the lean path"): an amount below 10^15 written in at most 32
// characters, and a currency of 3 characters. What they refuse answers the coded error of every check violation
// (sql_execution_failed with sqlstate 23514 and the constraint's name); what they accept reads back unchanged.
// That the guard then reads the ledger without its byte measuring, with the same answer, is sql-guard's
// test/run/lean-catalog.test.ts on this same migrated database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from './setup.js';

const insert = (amount: string) =>
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'bounds', ${amount}, 'EUR', 'spend')`;

describe.each(ENGINES)('amount and currency bounds on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const execute = (sql: string) =>
    live.request('POST', '/v1/sql/execute', { key: user.apiKey, body: { sql } });

  it('refuses an amount of 10^15 or more, NaN, and one written in more than 32 characters', async () => {
    for (const amount of ['1e15', '-1000000000000000', "'NaN'", "'Infinity'", `0.${'1'.repeat(31)}`]) {
      const res = await execute(insert(amount));
      expect(res.status, amount).toBe(400);
      expect(res.body.error, amount).toMatchObject({
        code: 'sql_execution_failed',
        details: { sqlstate: '23514', statementIndex: 0, constraint: 'ledger_entries_amount_bound' },
      });
    }
    const planned = await execute(
      "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-01-01', 'spend', 'food', 'EUR', 1e15)",
    );
    expect(planned.body.error).toMatchObject({
      code: 'sql_execution_failed',
      details: { sqlstate: '23514', constraint: 'budget_lines_planned_value_bound' },
    });
  });

  it('keeps the largest amounts it accepts exactly as written', async () => {
    const accepted = [
      '999999999999999.999999999999999',
      '-999999999999999.99999999999999',
      '0.000000000000001',
      '-12.50',
    ];
    for (const amount of accepted) expect((await execute(insert(amount))).status, amount).toBe(200);
    const read = await live.request('POST', '/v1/sql/query', {
      key: user.apiKey,
      body: {
        sql: "SELECT entry_id, ts, account_id, amount, currency, kind, category FROM ledger_entries WHERE account_id = 'bounds' ORDER BY amount DESC LIMIT 20",
      },
    });
    expect(read.status).toBe(200);
    expect(read.body.data.statements[0].rows.map((r: { amount: string }) => r.amount)).toEqual([
      '999999999999999.999999999999999',
      '0.000000000000001',
      '-12.50',
      '-999999999999999.99999999999999',
    ]);
  });
});
