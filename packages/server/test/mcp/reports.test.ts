import { createGuard } from '@expense/sql-guard';
import { guide } from '@expense/wire/guide';
import { REPORT_KINDS, reportSql } from '@expense/wire/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from '../sql/setup.js';
import { call, httpClient } from './helpers.js';

describe('report SQL and guide recipes', () => {
  it('every report and every recipe is accepted by the guard in query mode', async () => {
    const guard = await createGuard();
    for (const kind of REPORT_KINDS) {
      for (const currency of [undefined, 'EUR']) {
        const sql = reportSql({
          kind,
          from: '2025-11-15',
          to: '2026-02-10',
          ...(currency ? { currency } : {}),
        });
        const checked = guard.check(sql, { mode: 'query' });
        expect(checked.ok, `${kind}: ${JSON.stringify(checked)}`).toBe(true);
      }
    }
    const recipes = [...guide('recipes').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(recipes.length).toBeGreaterThanOrEqual(5);
    for (const sql of recipes) {
      const checked = guard.check(sql, { mode: 'query' });
      expect(checked.ok, `${sql}: ${JSON.stringify(checked)}`).toBe(true);
    }
  });

  it('refuses a range over 36 months and from after to', () => {
    expect(() => reportSql({ kind: 'monthly_trend', from: '2020-01-01', to: '2026-01-01' })).toThrow(
      /36 months/,
    );
    expect(() => reportSql({ kind: 'balances', from: '2026-02-01', to: '2026-01-01' })).toThrow(/after/);
    expect(() =>
      reportSql({ kind: 'balances', from: '2026-02-01', to: "2026-01-01' OR true" } as never),
    ).toThrow();
  });
});

describe.each(ENGINES)('report results on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
    await live.db.query(
      `INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
       VALUES ('USD', 'EUR', DATE '2026-02-03', 0.9, DATE '2026-02-03')`,
    );
    const sql = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
      (TIMESTAMPTZ '2026-02-03 10:00:00+00', 'card', -10, 'EUR', 'spend', 'food'),
      (TIMESTAMPTZ '2026-02-03 11:00:00+00', 'card-us', -5, 'USD', 'spend', 'food'),
      (TIMESTAMPTZ '2026-02-04 09:00:00+00', 'bank', -100, 'EUR', 'spend', 'rent'),
      (TIMESTAMPTZ '2026-02-01 09:00:00+00', 'bank', 1000, 'EUR', 'income', 'salary'),
      (TIMESTAMPTZ '2026-03-01 09:00:00+00', 'bank', -7, 'EUR', 'spend', 'food');
      INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value)
      VALUES (DATE '2026-02-01', 'spend', 'food', 'EUR', 50)`;
    const res = await live.request('POST', '/v1/sql', { key: user.apiKey, body: { sql } });
    expect(res.status, res.text).toBe(200);
  });
  afterAll(async () => live?.close());

  it('computes spend by category with FX, budget vs actual, balances and the monthly trend', async () => {
    const client = await httpClient(live, user.apiKey, 'inject');
    try {
      const feb = { from: '2026-02-01', to: '2026-02-28' };
      const spend = await call(client, 'report', { kind: 'spend_by_category', ...feb, currency: 'EUR' });
      expect(spend.structuredContent.statements[0].rows).toEqual([
        { category: 'rent', currency: 'EUR', spent: '100', entries: '1', unconverted: '0' },
        { category: 'food', currency: 'EUR', spent: '14.5', entries: '2', unconverted: '0' },
      ]);
      const budget = await call(client, 'report', { kind: 'budget_vs_actual', ...feb });
      expect(budget.structuredContent.statements[0].rows).toMatchObject([
        { budget_month: '2026-02-01', category: 'food', planned_value: '50', actual: '10' },
      ]);
      const balances = await call(client, 'report', { kind: 'balances', ...feb });
      expect(balances.structuredContent.statements[0].rows).toMatchObject([
        { account_id: 'bank', currency: 'EUR', balance: '900' },
        { account_id: 'card', currency: 'EUR', balance: '-10' },
        { account_id: 'card-us', currency: 'USD', balance: '-5' },
      ]);
      const trend = await call(client, 'report', {
        kind: 'monthly_trend',
        from: '2026-01-01',
        to: '2026-03-31',
        currency: 'EUR',
      });
      expect(
        trend.structuredContent.statements[0].rows.map((r: Record<string, string>) => [
          r.month,
          r.spent,
          r.income,
        ]),
      ).toEqual([
        ['2026-01-01', '0', '0'],
        ['2026-02-01', '114.5', '1000'],
        ['2026-03-01', '7', '0'],
      ]);
    } finally {
      await client.close();
    }
  });
});
