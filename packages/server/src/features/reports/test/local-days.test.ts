// Issue 23, items 1 and 2, at the edges the main report suite (test/mcp/reports.test.ts) does not reach: reports
// bucket by the workspace's local months across the daylight-saving changes of Europe/Berlin and America/New_York;
// a foreign entry converts by the rate of its LOCAL day (23:30Z on 4 December is 5 December in Berlin); a rate more
// than 7 days old is called stale in the answer and its notes; raw SQL is never rounded; and the guide's budget and
// FX recipes count 2026-11-30T23:30Z as December in Berlin. On PGlite, PostgreSQL and through PgBouncer.

import { guide } from '@expense/mcp/guide';
import { pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

describe.each([...ENGINES, ...pooledEngines('the local-day report tests through PgBouncer')])(
  'reports in local days on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;
    let berlin: string;
    let newYork: string;

    const post = (workspace: string, path: string, sql: string) =>
      live.request('POST', path, {
        key: user.apiKey,
        body: { sql },
        headers: { 'x-workspace-id': workspace },
      });
    const report = async (workspace: string, kind: string, query: string) => {
      const res = await live.request('GET', `${routePath(API_ROUTES.report, { kind })}?${query}`, {
        key: user.apiKey,
        headers: { 'x-workspace-id': workspace },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    };
    const rows = async (workspace: string, sql: string) => {
      const res = await post(workspace, routePath(API_ROUTES.sqlQuery), sql);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.statements[0].rows as Record<string, unknown>[];
    };
    const spend = (ts: string, amount: string, currency: string, category: string) =>
      `(TIMESTAMPTZ '${ts}', 'checking', ${amount}, '${currency}', 'spend', '${category}')`;

    beforeAll(async () => {
      ({ live, user, workspaceId: berlin } = await startWithWorkspace(engine));
      newYork = await addWorkspace(live.db, user.userId, 'New York');
      // The USD->EUR rate of 4 December is not the one of 5 December: which one a report uses shows which day it
      // took the entry to be on. The October rate is carried forward from 1 October: 19 days old on the 20th.
      await live.db.query(
        `INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
         VALUES ('USD', 'EUR', DATE '2026-12-04', 0.5, DATE '2026-12-04'),
                ('USD', 'EUR', DATE '2026-12-05', 0.97097, DATE '2026-12-04'),
                ('USD', 'EUR', DATE '2026-10-20', 0.9, DATE '2026-10-01'),
                ('USD', 'EUR', DATE '2026-09-05', 0.8, DATE '2026-09-04')`,
      );
      const setBerlin = await post(
        berlin,
        routePath(API_ROUTES.sqlScript),
        `UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin';
         INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
         ${spend('2026-03-31 21:30:00+00', '-1', 'EUR', 'march')},
         ${spend('2026-03-31 22:30:00+00', '-2', 'EUR', 'april')},
         ${spend('2026-10-31 22:30:00+00', '-4', 'EUR', 'october')},
         ${spend('2026-10-31 23:30:00+00', '-8', 'EUR', 'november')},
         ${spend('2026-11-30 23:30:00+00', '-20', 'EUR', 'groceries')},
         ${spend('2026-12-04 23:30:00+00', '-12.99', 'USD', 'subscriptions')},
         ${spend('2026-10-20 12:00:00+00', '-10', 'USD', 'travel')},
         ${spend('2026-09-05 12:00:00+00', '-10', 'USD', 'travel')};
         INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES
         (DATE '2026-12-01', 'spend', 'groceries', 'EUR', 300)`,
      );
      expect(setBerlin.status, JSON.stringify(setBerlin.body)).toBe(200);
      const setNewYork = await post(
        newYork,
        routePath(API_ROUTES.sqlScript),
        `UPDATE workspace_settings SET reporting_currency = 'USD', timezone = 'America/New_York';
         INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
         ${spend('2026-03-08 06:30:00+00', '-1', 'USD', 'a')},
         ${spend('2026-04-01 03:30:00+00', '-2', 'USD', 'a')},
         ${spend('2026-04-01 04:30:00+00', '-4', 'USD', 'a')},
         ${spend('2026-11-01 03:30:00+00', '-8', 'USD', 'a')},
         ${spend('2026-11-01 04:30:00+00', '-16', 'USD', 'a')}`,
      );
      expect(setNewYork.status, JSON.stringify(setNewYork.body)).toBe(200);
    });
    afterAll(async () => live?.close());

    it('buckets months by local midnight across the daylight-saving changes of New York', async () => {
      // 03:30Z on 1 April and 1 November is 23:30 EDT the day before; 04:30Z is 00:30 EDT on the 1st.
      const trend = await report(newYork, 'monthly_trend', 'from=2026-03-01&to=2026-11-30');
      const spent = Object.fromEntries(
        (trend.rows as { month: string; spent: string }[]).map((r) => [r.month, r.spent]),
      );
      expect(spent).toMatchObject({
        '2026-03-01': '3.00',
        '2026-04-01': '4.00',
        '2026-09-01': '0.00',
        '2026-10-01': '8.00',
        '2026-11-01': '16.00',
      });
      const lastOfOctober = await report(newYork, 'spend_by_category', 'from=2026-10-31&to=2026-10-31');
      expect(lastOfOctober.rows).toEqual([{ category: 'a', currency: 'USD', spent: '8.00', entries: 1 }]);
      const balances = await report(newYork, 'balances', 'from=2026-04-01&to=2026-10-31');
      expect(balances.rows).toEqual([
        {
          account_id: 'checking',
          currency: 'USD',
          balance: '-15.00',
          change: '-12.00',
          entries: 2,
          last_ts: '2026-10-31T23:30:00.000-04:00',
          native_currency: 'USD',
          native_balance: '-15.00',
          native_change: '-12.00',
        },
      ]);
    });

    it('buckets months by local midnight across the daylight-saving changes of Berlin', async () => {
      // 22:30Z on 31 March is 00:30 CEST on 1 April; 23:30Z on 31 October is 00:30 CET on 1 November.
      const trend = await report(berlin, 'spend_by_category', 'from=2026-04-01&to=2026-04-30');
      expect(trend.rows).toEqual([{ category: 'april', currency: 'EUR', spent: '2.00', entries: 1 }]);
      const november = await report(berlin, 'spend_by_category', 'from=2026-11-01&to=2026-11-30');
      expect(november.rows).toEqual([{ category: 'november', currency: 'EUR', spent: '8.00', entries: 1 }]);
      const months = await report(berlin, 'monthly_trend', 'from=2026-03-01&to=2026-04-30');
      expect(months.rows).toEqual([
        { month: '2026-03-01', currency: 'EUR', income: '0.00', spent: '1.00', net: '-1.00' },
        { month: '2026-04-01', currency: 'EUR', income: '0.00', spent: '2.00', net: '-2.00' },
      ]);
    });

    it("converts by the rate of the entry's local day, rounds in the report and never in raw SQL", async () => {
      const december = await report(berlin, 'spend_by_category', 'from=2026-12-01&to=2026-12-31');
      // 23:30Z on 4 December is 5 December in Berlin: 12.99 x 0.97097 (the 4 December rate would give 6.50).
      expect(december.rows).toEqual([
        { category: 'groceries', currency: 'EUR', spent: '20.00', entries: 1 },
        { category: 'subscriptions', currency: 'EUR', spent: '12.61', entries: 1 },
      ]);
      expect(december.fx).toMatchObject({
        newestRateDate: '2026-12-04',
        unconverted: { count: 0, currencies: [] },
      });
      const raw = await rows(
        berlin,
        `SELECT e.ts::date AS day, e.amount * r.rate AS eur FROM ledger_entries e
         JOIN fx_rates_daily r ON r.base_currency = e.currency AND r.quote_currency = 'EUR' AND r.calendar_date = e.ts::date
         WHERE e.category = 'subscriptions'`,
      );
      expect(raw).toEqual([{ day: '2026-12-05', eur: '-12.6129003' }]);
    });

    it('calls a rate more than 7 days old stale, and says so in the notes', async () => {
      const october = await report(berlin, 'spend_by_category', 'from=2026-10-01&to=2026-10-31');
      expect(october.fx).toEqual({
        newestRateDate: '2026-10-01',
        stale: true,
        unconverted: { count: 0, currencies: [] },
      });
      expect(october.rows).toContainEqual({ category: 'travel', currency: 'EUR', spent: '9.00', entries: 1 });
      expect(october.notes.join(' ')).toMatch(/stale.*2026-10-01/);
    });

    it('budget vs actual states the FX of what it sums only: entries of categories without a line are not in it', async () => {
      // December's only foreign entry (subscriptions, USD) has no budget line: nothing the report sums converted.
      const budget = await report(berlin, 'budget_vs_actual', 'from=2026-12-01&to=2026-12-31');
      expect(budget.rows).toEqual([
        {
          budget_month: '2026-12-01',
          direction: 'spend',
          category: 'groceries',
          currency: 'EUR',
          planned_value: '300.00',
          actual: '20.00',
        },
      ]);
      expect(budget.fx).toEqual({
        newestRateDate: null,
        stale: false,
        unconverted: { count: 0, currencies: [] },
      });
    });

    it("does not call a rate stale for days after the last entry it converted (a past month's report)", async () => {
      // The only foreign entry of September is on the 5th, converted by the rate of the 4th: that rate is one
      // day old where it was used, however long before the month's end (or today) that is.
      const september = await report(berlin, 'spend_by_category', 'from=2026-09-01&to=2026-09-30');
      expect(september.rows).toEqual([{ category: 'travel', currency: 'EUR', spent: '8.00', entries: 1 }]);
      expect(september.fx).toEqual({
        newestRateDate: '2026-09-04',
        stale: false,
        unconverted: { count: 0, currencies: [] },
      });
      expect(september.notes).toEqual([]);
    });

    it("counts 2026-11-30T23:30Z as December in the guide's budget and FX recipes", async () => {
      const recipes = [...guide('recipes', 'http').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
      const inDecember = (sql: string) =>
        sql.replaceAll('2026-08-01', '2026-12-01').replaceAll('2026-09-01', '2027-01-01');
      const budget = await rows(berlin, inDecember(recipes[1]!));
      expect(budget).toEqual([
        { category: 'groceries', currency: 'EUR', planned_value: '300', actual: '20', unconverted: '0' },
      ]);
      const fx = await rows(berlin, inDecember(recipes[3]!));
      expect(fx.map((r) => [r.currency, r.total, r.unconverted, r.oldest_rate_date])).toEqual([
        ['EUR', '-20', '0', null],
        ['USD', '-12.6129003', '0', '2026-12-04'],
      ]);
    });
  },
);
