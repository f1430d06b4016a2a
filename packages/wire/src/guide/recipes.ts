export const RECIPES = `# Recipes

Spending by category in August 2026:
\`\`\`sql
SELECT coalesce(category, '(none)') AS category, currency, 0 - sum(amount) AS spent
FROM ledger_entries
WHERE kind = 'spend' AND ts >= DATE '2026-08-01' AND ts < DATE '2026-09-01'
GROUP BY coalesce(category, '(none)'), currency ORDER BY spent DESC
\`\`\`

Budget vs actual for a month:
\`\`\`sql
SELECT b.category, b.planned_value,
  0 - coalesce((SELECT sum(e.amount) FROM ledger_entries e WHERE e.kind = 'spend'
    AND e.category = b.category AND e.currency = b.currency
    AND e.ts >= b.budget_month AND e.ts < b.budget_month + INTERVAL '1 month'), 0) AS actual
FROM budget_lines b WHERE b.budget_month = DATE '2026-08-01' AND b.direction = 'spend'
\`\`\`

Balances (the \`accounts\` view sums every entry):
\`\`\`sql
SELECT account_id, currency, balance, last_ts FROM accounts ORDER BY account_id
\`\`\`

FX conversion into the reporting currency, by the rate of each entry's day:
\`\`\`sql
SELECT sum(CASE WHEN e.currency = s.reporting_currency THEN e.amount ELSE e.amount * r.rate END) AS total
FROM ledger_entries e
JOIN workspace_settings s ON true
LEFT JOIN fx_rates_daily r ON r.base_currency = e.currency
  AND r.quote_currency = s.reporting_currency AND r.calendar_date = e.ts::date
WHERE e.kind = 'spend' AND e.ts >= DATE '2026-08-01' AND e.ts < DATE '2026-09-01'
\`\`\`

Monthly trend (explicit month ranges, no date functions):
\`\`\`sql
SELECT m.month_start, e.currency, coalesce(sum(e.amount), 0) AS net
FROM (VALUES (DATE '2026-07-01', DATE '2026-08-01'), (DATE '2026-08-01', DATE '2026-09-01'))
  AS m (month_start, month_end)
LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_end AND e.kind <> 'transfer'
GROUP BY m.month_start, e.currency ORDER BY m.month_start
\`\`\`

The \`report\` tool runs reviewed versions of these for a date range.
`;
