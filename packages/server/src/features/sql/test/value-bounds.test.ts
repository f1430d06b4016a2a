// The value bounds of migration 0046 (issue 28, "the lean path"): an amount below 10^15 written in at most 32
// characters, and a currency of 3 characters. What they refuse answers the coded error of every check violation
// (sql_execution_failed with sqlstate 23514 and the constraint's name); what they accept reads back unchanged.
// With them the guard reads the ledger without its byte measuring (the lean path), through the server's own
// pipeline (context, role switch, row-level security), and answers what the measured path answers, byte for byte.
import { createGuard, type Guard, type RunResult } from '@expense/sql-guard';
import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCheckColumn } from '../../../../../sql-guard/src/run/wrapper-sql.js';
import { recording } from '../../../../../sql-guard/test/run/helpers.js';
import { runGuarded } from '../pipeline.js';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from './setup.js';

const insert = (amount: string) =>
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'bounds', ${amount}, 'EUR', 'spend')`;

describe.each(ENGINES)('amount and currency bounds on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const execute = (sql: string) =>
    live.request('POST', routePath(API_ROUTES.sqlExecute), { key: user.apiKey, body: { sql } });

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
    const read = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
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

  for (const sql of [
    'SELECT entry_id, ts, account_id, amount, currency, kind, category FROM ledger_entries ORDER BY ts DESC LIMIT 20',
    'SELECT * FROM ledger_entries ORDER BY entry_id LIMIT 20',
  ]) {
    it(`reads lean through the server's pipeline, with the measured path's answer: ${sql}`, async () => {
      const rows = Array.from(
        { length: 25 },
        (_, i) =>
          `(TIMESTAMPTZ '2026-02-01 00:00:00+00' + INTERVAL '${i} hours', 'lean-${i % 3}', ${i}.25, 'EUR', 'spend', 'c${i}', '${'n'.repeat(i * 40)}')`,
      );
      const seeded = await execute(
        `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ${rows.join(', ')}`,
      );
      expect(seeded.status).toBe(200);
      const read = async (guard: Guard) => {
        let sent: string[] = [];
        const result = await runGuarded(
          live.db,
          guard,
          { userId: user.userId, workspaceId, readOnly: true },
          {
            mode: 'query',
            sql,
            dryRun: false,
            observe: (session) => {
              const recorded = recording(session);
              sent = recorded.sent;
              return recorded.session;
            },
          },
          async (r: RunResult) => r,
        );
        return { result, sent };
      };
      const lean = await read(await createGuard());
      // A budget the read's bound does not fit twice: the guard keeps its measuring wrapper.
      const wrapped = await read(await createGuard({ limits: { maxResultBytes: 100_000 } }));
      expect(lean.sent.join('\n')).not.toContain(rowCheckColumn);
      expect(wrapped.sent.join('\n')).toContain(rowCheckColumn);
      expect(lean.result.statements[0]?.rows).toHaveLength(20);
      expect(JSON.stringify(lean.result)).toBe(JSON.stringify(wrapped.result));
      await execute("DELETE FROM ledger_entries WHERE account_id LIKE 'lean-%'");
    });
  }
});
