import { CALLS, type GuideTransport } from './transport.js';

// SQL runs in the workspace's time zone: TIMESTAMPTZ literals without an offset are local midnights (and a
// constant bound on ts, which an index can use), ts::date is the local day.
export const RECIPES = (transport: GuideTransport): string => `# Recipes

SQL runs in the workspace's time zone, so the bounds below are local midnights and \`ts::date\` is the local day.

Spending by category in August 2026 (refunds, positive spend rows, subtract; transfers are not spending):
\`\`\`sql
SELECT coalesce(category, '(none)') AS category, currency, 0 - sum(amount) AS spent
FROM ledger_entries
WHERE kind = 'spend' AND ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00'
GROUP BY coalesce(category, '(none)'), currency ORDER BY spent DESC
\`\`\`

Budget vs actual for a month (same currency; ${CALLS[transport].report} converts):
\`\`\`sql
SELECT b.category, b.currency, b.planned_value,
  0 - coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.kind = 'spend'
    AND e.category = b.category AND e.currency = b.currency
    AND e.ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND e.ts < TIMESTAMPTZ '2026-09-01 00:00:00'), 0) AS actual
FROM budget_lines b WHERE b.budget_month = DATE '2026-08-01' AND b.direction = 'spend'
\`\`\`

Balances (the \`accounts\` view sums every entry):
\`\`\`sql
SELECT account_id, currency, balance, last_ts FROM accounts ORDER BY account_id
\`\`\`

FX conversion into the reporting currency, by the rate of each entry's local day (no rate: left out, counted):
\`\`\`sql
SELECT sum(CASE WHEN e.currency = s.reporting_currency THEN e.amount ELSE e.amount * r.rate END) AS total,
  sum(CASE WHEN e.currency <> s.reporting_currency AND r.rate IS NULL THEN 1 ELSE 0 END) AS unconverted,
  max(r.source_rate_date) AS newest_rate_date
FROM ledger_entries e
JOIN workspace_settings s ON true
LEFT JOIN fx_rates_daily r ON r.base_currency = e.currency
  AND r.quote_currency = s.reporting_currency AND r.calendar_date = e.ts::date
WHERE e.kind = 'spend' AND e.ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND e.ts < TIMESTAMPTZ '2026-09-01 00:00:00'
\`\`\`

Monthly trend (explicit local month ranges, no date functions, transfers left out):
\`\`\`sql
SELECT m.month_start::date AS month, e.currency, coalesce(sum(e.amount), 0) AS net
FROM (VALUES (TIMESTAMPTZ '2026-07-01 00:00:00', TIMESTAMPTZ '2026-08-01 00:00:00'),
             (TIMESTAMPTZ '2026-08-01 00:00:00', TIMESTAMPTZ '2026-09-01 00:00:00'))
  AS m (month_start, month_end)
LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_end AND e.kind <> 'transfer'
GROUP BY m.month_start, e.currency ORDER BY m.month_start
\`\`\`

${CALLS[transport].report[0]?.toUpperCase()}${CALLS[transport].report.slice(1)} runs reviewed versions of these for a date range, in one currency (converted, rounded to
its minor units), and says how old the rates are and what it could not convert.
`;
