// Issue 39, item 4: money that reaches the user converted, with what it rests on. A USD subscription against an EUR
// budget counts its converted amount (in the report and in the guide's recipe); balances show the native currency
// and amount beside the converted ones and count only the range's entries; the guide's FX recipe names the oldest
// rate a currency used (693 days old here), which the reporting currency's own identity rows cannot hide. On PGlite
// and PostgreSQL.
import { guide } from '@expense/mcp/guide';
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

/** The guide's SQL recipes over HTTP, in order: spending, budget, balances, FX, trend. */
const recipes = [...guide('recipes', 'http').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const inMarch2027 = (sql: string) =>
  sql.replaceAll('2026-08-01', '2027-03-01').replaceAll('2026-09-01', '2027-04-01');

describe.each(ENGINES)('converted money in reports and recipes on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  const post = (path: string, sql: string) =>
    live.request('POST', path, {
      key: user.apiKey,
      body: { sql },
      headers: { 'x-workspace-id': workspaceId },
    });
  const rows = async (sql: string) => {
    const res = await post(routePath(API_ROUTES.sqlQuery), sql);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.statements[0].rows as Record<string, unknown>[];
  };
  const report = async (kind: string) => {
    const res = await call(live, API_ROUTES.report, {
      params: { kind },
      query: { from: '2027-03-01', to: '2027-03-31' },
      key: user.apiKey,
      headers: { 'x-workspace-id': workspaceId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
    // USD rates stopped on 2025-04-16 and are carried forward; EUR's identity rows are fresh every day.
    await live.db.query(
      `INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
       VALUES ('USD', 'EUR', DATE '2027-02-15', 0.95, DATE '2025-04-16'),
              ('USD', 'EUR', DATE '2027-03-05', 0.9, DATE '2025-04-16'),
              ('USD', 'EUR', DATE '2027-03-10', 0.8, DATE '2025-04-16'),
              ('EUR', 'EUR', DATE '2027-03-06', 1, DATE '2027-03-06')`,
    );
    const seeded = await post(
      routePath(API_ROUTES.sqlScript),
      `UPDATE workspace_settings SET reporting_currency = 'EUR';
       INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
       (TIMESTAMPTZ '2027-02-15 12:00:00+00', 'card', -100, 'USD', 'spend', 'travel'),
       (TIMESTAMPTZ '2027-03-05 12:00:00+00', 'card', -12.99, 'USD', 'spend', 'subscriptions'),
       (TIMESTAMPTZ '2027-03-10 12:00:00+00', 'card', -10, 'USD', 'spend', 'subscriptions'),
       (TIMESTAMPTZ '2027-03-06 12:00:00+00', 'checking', -5, 'EUR', 'spend', 'groceries');
       INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES
       (DATE '2027-03-01', 'spend', 'subscriptions', 'EUR', 20)`,
    );
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
  });
  afterAll(async () => live?.close());

  it('counts a USD subscription against an EUR budget at its converted amount, in the report and the recipe', async () => {
    const budget = await report('budget_vs_actual');
    // 12.99 x 0.9 + 10 x 0.8 = 19.691
    expect(budget.rows).toEqual([
      {
        budget_month: '2027-03-01',
        direction: 'spend',
        category: 'subscriptions',
        currency: 'EUR',
        planned_value: '20.00',
        actual: '19.69',
      },
    ]);
    const recipe = await rows(inMarch2027(recipes[1] as string));
    expect(recipe).toHaveLength(1);
    expect(recipe[0]).toMatchObject({ category: 'subscriptions', currency: 'EUR', unconverted: '0' });
    expect(Number(recipe[0]?.actual)).toBeCloseTo(19.691, 6);
  });

  it('shows balances in the native currency beside the converted one, counting only the entries of the range', async () => {
    const balances = await report('balances');
    expect(balances.rows).toEqual([
      {
        account_id: 'card',
        currency: 'EUR',
        balance: '-114.69', // -95 (February) - 11.691 - 8
        change: '-19.69',
        entries: 2, // February's entry is in the balance, not in the range
        last_ts: '2027-03-10T12:00:00.000+00:00',
        native_currency: 'USD',
        native_balance: '-122.99',
        native_change: '-22.99',
      },
      {
        account_id: 'checking',
        currency: 'EUR',
        balance: '-5.00',
        change: '-5.00',
        entries: 1,
        last_ts: '2027-03-06T12:00:00.000+00:00',
        native_currency: 'EUR',
        native_balance: '-5.00',
        native_change: '-5.00',
      },
    ]);
    expect(balances.fx).toMatchObject({ newestRateDate: '2025-04-16', stale: true });
  });

  it("names the stale currency's old rate date in the FX recipe, whatever the reporting currency's rows say", async () => {
    const fx = await rows(inMarch2027(recipes[3] as string));
    expect(fx.map((r) => [r.currency, r.oldest_rate_date, r.unconverted])).toEqual([
      ['EUR', null, '0'],
      ['USD', '2025-04-16', '0'],
    ]);
    const usd = fx.find((r) => r.currency === 'USD');
    expect(Number(usd?.max_rate_age_days)).toBe(693);
    expect(Number(usd?.total)).toBeCloseTo(-19.691, 6);
    expect(Number(fx.find((r) => r.currency === 'EUR')?.total)).toBe(-5);
  });
});
