import { CALLS, type GuideTransport } from './transport.js';

// SQL runs in the workspace's time zone: TIMESTAMPTZ literals without an offset are local midnights (and a
// constant bound on ts, which an index can use), ts::date is the local day.
export const RECIPES = (transport: GuideTransport): string => `# Recipes

SQL runs in the workspace's time zone, so the bounds below are local midnights and \`ts::date\` is the local day.

Spending by category in August 2026, per currency as written (refunds, positive spend rows, subtract; transfers are
not spending; ${CALLS[transport].report} with \`spend_by_category\` converts into one currency):
\`\`\`sql
SELECT coalesce(category, '(none)') AS category, currency, 0 - sum(amount) AS spent
FROM ledger_entries
WHERE kind = 'spend' AND ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00'
GROUP BY coalesce(category, '(none)'), currency ORDER BY spent DESC
\`\`\`

Budget vs actual for a month (${CALLS[transport].report} with \`budget_vs_actual\` does the same in one currency,
rounded). Each entry converts into its line's currency by the rate of its local day; one without a rate is left out
of \`actual\` and counted in \`unconverted\` (tell the user):
\`\`\`sql
SELECT b.category, b.currency, b.planned_value,
  0 - coalesce(sum(CASE WHEN e.currency = b.currency THEN e.amount ELSE e.amount * r.rate END), 0) AS actual,
  sum(CASE WHEN e.currency <> b.currency AND r.rate IS NULL THEN 1 ELSE 0 END) AS unconverted
FROM budget_lines b
LEFT JOIN ledger_entries e ON e.kind = 'spend' AND e.category = b.category
  AND e.ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND e.ts < TIMESTAMPTZ '2026-09-01 00:00:00'
LEFT JOIN fx_rates_daily r ON r.base_currency = e.currency AND r.quote_currency = b.currency
  AND r.calendar_date = e.ts::date
WHERE b.budget_month = DATE '2026-08-01' AND b.direction = 'spend'
GROUP BY b.line_id, b.category, b.currency, b.planned_value ORDER BY b.category
\`\`\`

Balances in each account's own currencies (the \`accounts\` view sums every entry, one row per account and currency;
${CALLS[transport].report} with \`balances\` adds the converted balance beside the native one):
\`\`\`sql
SELECT account_id, currency, balance, last_ts FROM accounts ORDER BY account_id, currency
\`\`\`

FX conversion into the reporting currency, per currency, by the rate of each entry's local day. \`fx_rates_daily\`
carries the last market rate forward, so \`oldest_rate_date\` is the oldest rate actually used for that currency and
\`max_rate_age_days\` how far it was carried: over 7 days, tell the user the converted amounts rest on a rate of that
date. Sum \`total\` over the rows for the grand total; rows with \`unconverted\` > 0 had no rate and are left out:
\`\`\`sql
SELECT e.currency, s.reporting_currency,
  sum(CASE WHEN e.currency = s.reporting_currency THEN e.amount ELSE e.amount * r.rate END) AS total,
  sum(CASE WHEN e.currency <> s.reporting_currency AND r.rate IS NULL THEN 1 ELSE 0 END) AS unconverted,
  min(r.source_rate_date) AS oldest_rate_date,
  max(r.calendar_date - r.source_rate_date) AS max_rate_age_days
FROM ledger_entries e
JOIN workspace_settings s ON true
LEFT JOIN fx_rates_daily r ON e.currency <> s.reporting_currency AND r.base_currency = e.currency
  AND r.quote_currency = s.reporting_currency AND r.calendar_date = e.ts::date
WHERE e.kind = 'spend' AND e.ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND e.ts < TIMESTAMPTZ '2026-09-01 00:00:00'
GROUP BY e.currency, s.reporting_currency ORDER BY e.currency
\`\`\`

Monthly trend per currency as written (explicit local month ranges, no date functions, transfers left out;
${CALLS[transport].report} with \`monthly_trend\` converts):
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
