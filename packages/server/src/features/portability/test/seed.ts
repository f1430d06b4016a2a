// A generated workspace for the portability suites: thousands of ledger entries spread over 18 months in two
// currencies (income, spending, balanced transfers, text a spreadsheet would run), budget lines, account metadata,
// settings, and a change history written through the SQL API.
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { REPORT_KINDS } from '@expense/wire/reports';
import { expect } from 'vitest';
import type { Live, TestUser } from '../../sql/test/setup.js';

export const RANGE = { from: '2025-01-01', to: '2026-06-30' };

/** The whole range, then each of its months (first and last day). */
export function reportRanges(): { from: string; to: string }[] {
  const ranges = [RANGE];
  for (let month = new Date(`${RANGE.from}T00:00:00Z`); month.toISOString() < RANGE.to; ) {
    const next = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
    const last = new Date(next.getTime() - 86_400_000);
    ranges.push({ from: month.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) });
    month = next;
  }
  return ranges;
}

/** Seeds `entries` generated rows as the owner, and a history of API writes on top. */
export async function seedWorkspace(
  live: Live,
  user: TestUser,
  workspaceId: string,
  entries = 3000,
): Promise<void> {
  await live.db.query(
    `INSERT INTO public.ledger_entries
       (workspace_id, ts, account_id, amount, currency, kind, category, counterparty, note, external_id)
     SELECT $1, timestamptz '2025-01-01 08:00:00+00' + g * (interval '545 days' / $2::int),
            (ARRAY['checking', 'savings', 'card'])[1 + g % 3],
            CASE WHEN g % 10 = 0 THEN round(1000 + (g % 97) * 13.37, 2) ELSE -round(1 + (g * 37 % 20000) / 100.0, 2) END,
            CASE WHEN g % 7 = 0 THEN 'USD' ELSE 'EUR' END,
            CASE WHEN g % 10 = 0 THEN 'income' ELSE 'spend' END,
            CASE WHEN g % 10 = 0 THEN 'salary' ELSE (ARRAY['food', 'rent', 'travel', 'fun', 'health'])[1 + g % 5] END,
            CASE WHEN g % 11 = 0 THEN '=HYPERLINK("http://x.example")' ELSE 'shop ' || (g % 40) END,
            CASE WHEN g % 13 = 0 THEN E'two\\nlines, "quoted"' ELSE NULL END,
            'ext-' || g
     FROM generate_series(1, $2::int) AS g`,
    [workspaceId, entries],
  );
  await live.db.query(
    `INSERT INTO public.ledger_entries (workspace_id, event_id, ts, account_id, amount, currency, kind)
     SELECT $1, 'move-' || g, timestamptz '2025-02-01 12:00:00+00' + g * interval '5 days', a.account, a.sign * 250.5, 'EUR', 'transfer'
     FROM generate_series(1, 60) AS g, (VALUES ('checking', -1), ('savings', 1)) AS a(account, sign)`,
    [workspaceId],
  );
  await live.db.query(
    `INSERT INTO public.budget_lines (workspace_id, budget_month, direction, category, currency, planned_value, note)
     SELECT $1, (date '2025-01-01' + m * interval '1 month')::date, 'spend', c, 'EUR', 100 + m * 10.25, 'plan'
     FROM generate_series(0, 17) AS m, unnest(ARRAY['food', 'rent', 'travel']) AS c`,
    [workspaceId],
  );
  const sql = async (text: string) => {
    const res = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      headers: { 'x-workspace-id': workspaceId },
      body: { sql: text },
    });
    expect(res.status, res.text).toBe(200);
  };
  await sql(
    "INSERT INTO account_metadata (account_id, display_name, account_type, liquidity, note) VALUES ('checking', 'Main', 'checking', 'high', '+1 call'), ('card', 'Visa', 'credit_card', 'medium', NULL)",
  );
  await sql(
    "UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin', first_day_of_week = 7",
  );
  await sql(
    "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-03-01 23:30:00+00', 'cash', -12.345678, 'EUR', 'spend', 'food')",
  );
  await sql(
    "UPDATE budget_lines SET planned_value = 999.99 WHERE category = 'rent' AND budget_month = DATE '2026-01-01'",
  );
}

/**
 * Every report kind (the contract's list) over the whole range and over each month of it, in the workspace, without
 * the parts that name the time of asking.
 */
export async function reports(
  live: Live,
  key: string,
  workspaceId: string,
  ranges = reportRanges(),
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const kind of REPORT_KINDS) {
    for (const { from, to } of ranges) {
      const res = await call(live, API_ROUTES.report, {
        params: { kind },
        query: { from, to },
        key,
        headers: { 'x-workspace-id': workspaceId },
      });
      expect(res.status, res.text).toBe(200);
      out[`${kind} ${from}..${to}`] = {
        rows: res.body.data.rows,
        currency: res.body.data.currency,
        fx: res.body.data.fx,
      };
    }
  }
  return out;
}
