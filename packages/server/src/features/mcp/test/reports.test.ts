// Issue 23, item 2: GET /v1/reports/{kind} and the MCP `report` tool. A Berlin household keeping EUR books, with a
// USD subscription, a GBP purchase without a rate, a refund, a transfer and an entry at 2026-11-30T23:30Z (00:30 on
// 1 December in Berlin): one EUR figure per line, converted by the rate of the entry's local day and rounded to
// cents, with the rate date used and what could not be converted; on PGlite, PostgreSQL and through PgBouncer.

import { guide } from '@expense/mcp/guide';
import { createGuard } from '@expense/sql-guard';
import { call as callRoute, pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { REPORT_KINDS } from '@expense/wire/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportScript } from '../../reports/sql.js';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';
import { call, httpClient } from './helpers.js';

describe('report SQL and guide recipes', () => {
  it('every report statement and every recipe is accepted by the guard in query mode', async () => {
    const guard = await createGuard();
    for (const kind of REPORT_KINDS) {
      for (const currency of [undefined, 'EUR']) {
        for (const sql of reportScript({
          kind,
          from: '2025-11-15',
          to: '2026-02-10',
          ...(currency ? { currency } : {}),
        })) {
          const checked = guard.check(sql, { mode: 'query' });
          expect(checked.ok, `${kind}: ${JSON.stringify(checked)}`).toBe(true);
        }
      }
    }
    for (const transport of ['http', 'mcp'] as const) {
      const recipes = [...guide('recipes', transport).matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
      expect(recipes.length).toBeGreaterThanOrEqual(5);
      for (const sql of recipes) {
        const checked = guard.check(sql, { mode: 'query' });
        expect(checked.ok, `${sql}: ${JSON.stringify(checked)}`).toBe(true);
      }
    }
    await guard.close();
  });

  it('refuses a range over 36 months, from after to, and text that is not a date', () => {
    expect(() => reportScript({ kind: 'monthly_trend', from: '2020-01-01', to: '2026-01-01' })).toThrow(
      /36 months/,
    );
    expect(() => reportScript({ kind: 'balances', from: '2026-02-01', to: '2026-01-01' })).toThrow(/after/);
    expect(() =>
      reportScript({ kind: 'balances', from: '2026-02-01', to: "2026-01-01' OR true" } as never),
    ).toThrow();
  });
});

describe.each([...ENGINES, ...pooledEngines('the report tests through PgBouncer')])(
  'reports on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;
    let workspaceId: string;

    const report = (kind: string, query: string, key = user.apiKey, headers: Record<string, string> = {}) =>
      live.request('GET', `${routePath(API_ROUTES.report, { kind })}?${query}`, { key, headers });
    const december = 'from=2026-12-01&to=2026-12-31';

    beforeAll(async () => {
      ({ live, user, workspaceId } = await startWithWorkspace(engine));
      await live.db.query(
        `INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
         VALUES ('USD', 'EUR', DATE '2026-12-01', 0.95, DATE '2026-11-27'),
                ('USD', 'EUR', DATE '2026-12-05', 0.97097, DATE '2026-12-04'),
                ('EUR', 'JPY', DATE '2026-12-02', 160.1234, DATE '2026-12-02')`,
      );
      const sql = `UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin';
        INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, event_id) VALUES
        (TIMESTAMPTZ '2026-11-30 22:30:00+00', 'checking', -7, 'EUR', 'spend', 'groceries', NULL),
        (TIMESTAMPTZ '2026-11-30 23:30:00+00', 'checking', -20, 'EUR', 'spend', 'groceries', NULL),
        (TIMESTAMPTZ '2026-12-05 12:00:00+00', 'card', -12.99, 'USD', 'spend', 'subscriptions', NULL),
        (TIMESTAMPTZ '2026-12-06 12:00:00+00', 'checking', 5, 'EUR', 'spend', 'groceries', NULL),
        (TIMESTAMPTZ '2026-12-10 12:00:00+00', 'card', -10, 'GBP', 'spend', 'misc', NULL),
        (TIMESTAMPTZ '2026-12-01 12:00:00+00', 'checking', -100, 'EUR', 'transfer', NULL, 't1'),
        (TIMESTAMPTZ '2026-12-01 12:00:00+00', 'savings', 100, 'EUR', 'transfer', NULL, 't1'),
        (TIMESTAMPTZ '2026-12-02 08:00:00+00', 'checking', 2000, 'EUR', 'income', 'salary', NULL);
        INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES
        (DATE '2026-12-01', 'spend', 'groceries', 'EUR', 300),
        (DATE '2026-12-01', 'spend', 'subscriptions', 'USD', 15)`;
      const res = await callRoute(live, API_ROUTES.sqlScript, { key: user.apiKey, body: { sql } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
    afterAll(async () => live?.close());

    const fxOf = (newestRateDate: string, unconverted: string[]) => ({
      newestRateDate,
      // The 4 December rate converted 5 December: a day old where it was used, not stale whatever today is.
      stale: false,
      unconverted: { count: unconverted.length, currencies: [...new Set(unconverted)] },
    });

    it('spending by category: one EUR figure per category, refunds subtracted, the local December', async () => {
      const res = await report('spend_by_category', december);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({
        kind: 'spend_by_category',
        from: '2026-12-01',
        to: '2026-12-31',
        currency: 'EUR',
        rows: [
          { category: 'groceries', currency: 'EUR', spent: '15.00', entries: 2 },
          { category: 'subscriptions', currency: 'EUR', spent: '12.61', entries: 1 },
          { category: 'misc', currency: 'EUR', spent: '0.00', entries: 1 },
        ],
        fx: fxOf('2026-12-04', ['GBP']),
      });
      expect(res.body.data.notes.join(' ')).toMatch(/1 item\(s\) in GBP had no exchange rate into EUR/);
      const november = await report('spend_by_category', 'from=2026-11-01&to=2026-11-30');
      expect(november.body.data.rows).toEqual([
        { category: 'groceries', currency: 'EUR', spent: '7.00', entries: 1 },
      ]);
    });

    it('budget vs actual: planned and actual converted into EUR per line', async () => {
      const res = await report('budget_vs_actual', december);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.rows).toEqual([
        {
          budget_month: '2026-12-01',
          direction: 'spend',
          category: 'groceries',
          currency: 'EUR',
          planned_value: '300.00',
          actual: '15.00',
        },
        {
          budget_month: '2026-12-01',
          direction: 'spend',
          category: 'subscriptions',
          currency: 'EUR',
          planned_value: '14.25',
          actual: '12.61',
        },
      ]);
      expect(res.body.data.fx.newestRateDate).toBe('2026-12-04');
      const empty = await report('budget_vs_actual', 'from=2027-01-01&to=2027-01-31');
      expect(empty.body.data.rows).toEqual([]);
      expect(empty.body.data.notes.join(' ')).toContain('no budget lines in this range');
    });

    it('balances at the end of the range and the monthly trend, transfers neither income nor spending', async () => {
      const balances = await report('balances', december);
      // One row per account and native currency; entries counts the range's entries only (checking's entry of
      // 30 November is in its balance, not in the range). GBP has no rate: left out of the converted sums, noted.
      expect(balances.body.data.rows).toEqual([
        {
          account_id: 'card',
          currency: 'EUR',
          balance: '0.00',
          change: '0.00',
          entries: 1,
          last_ts: '2026-12-10T13:00:00.000+01:00',
          native_currency: 'GBP',
          native_balance: '-10.00',
          native_change: '-10.00',
        },
        {
          account_id: 'card',
          currency: 'EUR',
          balance: '-12.61',
          change: '-12.61',
          entries: 1,
          last_ts: '2026-12-05T13:00:00.000+01:00',
          native_currency: 'USD',
          native_balance: '-12.99',
          native_change: '-12.99',
        },
        {
          account_id: 'checking',
          currency: 'EUR',
          balance: '1878.00',
          change: '1885.00',
          entries: 4,
          last_ts: '2026-12-06T13:00:00.000+01:00',
          native_currency: 'EUR',
          native_balance: '1878.00',
          native_change: '1885.00',
        },
        {
          account_id: 'savings',
          currency: 'EUR',
          balance: '100.00',
          change: '100.00',
          entries: 1,
          last_ts: '2026-12-01T13:00:00.000+01:00',
          native_currency: 'EUR',
          native_balance: '100.00',
          native_change: '100.00',
        },
      ]);
      expect(balances.body.data.notes.join(' ')).toContain('GBP');
      const trend = await report('monthly_trend', 'from=2026-11-01&to=2026-12-31');
      expect(trend.body.data.rows).toEqual([
        { month: '2026-11-01', currency: 'EUR', income: '0.00', spent: '7.00', net: '-7.00' },
        { month: '2026-12-01', currency: 'EUR', income: '2000.00', spent: '27.61', net: '1972.39' },
      ]);
    });

    it("rounds to the currency's minor units (JPY: none) and says what it could not convert", async () => {
      const res = await report('monthly_trend', 'from=2026-12-01&to=2026-12-02&currency=JPY');
      expect(res.status).toBe(200);
      expect(res.body.data.currency).toBe('JPY');
      expect(res.body.data.rows).toEqual([
        { month: '2026-12-01', currency: 'JPY', income: '320247', spent: '0', net: '320247' },
      ]);
      // The 1 December entry (EUR) has no EUR->JPY rate that day.
      expect(res.body.data.fx.unconverted).toEqual({ count: 1, currencies: ['EUR'] });
    });

    it('refuses bad input with 400 invalid_request and a hint, and foreign workspaces with 404', async () => {
      for (const query of [
        `${december}&currency=XYZ`,
        `${december}&currency=eur`,
        'from=2026-12-31&to=2026-12-01',
        'from=2026-12-01',
        `${december}&extra=1`,
      ]) {
        const res = await report('balances', query);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.hint.length).toBeGreaterThan(0);
      }
      expect((await report('nope', december)).status).toBe(400);
      const foreign = await report('balances', december, user.apiKey, {
        'x-workspace-id': '00000000-0000-4000-8000-000000000000',
      });
      expect(foreign.status).toBe(404);
    });

    it('the MCP report tool answers the same data, notes included', async () => {
      const client = await httpClient(live, user.apiKey, 'inject');
      try {
        for (const kind of REPORT_KINDS) {
          const viaHttp = (await report(kind, december)).body.data;
          const viaMcp = await call(client, 'report', {
            kind,
            from: '2026-12-01',
            to: '2026-12-31',
            workspaceId,
          });
          expect(viaMcp.isError, JSON.stringify(viaMcp)).toBeFalsy();
          expect(viaMcp.structuredContent).toMatchObject(viaHttp);
          for (const note of viaHttp.notes) expect(viaMcp.content[0].text).toContain(note);
        }
      } finally {
        await client.close();
      }
    });
  },
);
