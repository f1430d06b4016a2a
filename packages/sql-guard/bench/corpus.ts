import type { Mode } from '../src/types.js';

/** Typical statements an agent managing expenses sends, with the mode it sends them in. */
export const corpus: { sql: string; mode: Mode }[] = [
  {
    mode: 'query',
    sql: "SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ts >= DATE '2026-07-01' AND ts < DATE '2026-08-01' GROUP BY category ORDER BY total DESC",
  },
  {
    mode: 'query',
    sql: "SELECT b.category, b.planned_value AS budget, coalesce(sum(l.amount), 0) AS actual FROM budget_lines b LEFT JOIN ledger_entries l ON l.category = b.category AND l.ts >= DATE '2026-07-01' AND l.ts < DATE '2026-08-01' WHERE b.budget_month = DATE '2026-07-01' GROUP BY b.category, b.planned_value ORDER BY b.category",
  },
  {
    mode: 'query',
    sql: "SELECT l.entry_id, l.ts, l.amount, l.currency, l.amount * r.rate AS amount_eur FROM ledger_entries l JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = 'EUR' AND r.calendar_date = l.ts::date WHERE l.ts >= DATE '2026-07-01' ORDER BY l.ts",
  },
  { mode: 'query', sql: 'SELECT * FROM ledger_entries ORDER BY ts DESC LIMIT 20' },
  {
    mode: 'query',
    sql: "SELECT entry_id, ts, amount, note FROM ledger_entries WHERE note ILIKE '%coffee%' ORDER BY ts DESC",
  },
  {
    mode: 'query',
    sql: "WITH monthly AS (SELECT category, sum(amount) AS total FROM ledger_entries WHERE ts >= DATE '2026-07-01' AND ts < DATE '2026-08-01' GROUP BY category) SELECT m.category, m.total, b.planned_value FROM monthly m LEFT JOIN budget_lines b ON b.category = m.category",
  },
  { mode: 'query', sql: 'SELECT reporting_currency FROM workspace_settings WHERE first_day_of_week = 1' },
  {
    mode: 'query',
    sql: "SELECT entry_id, note FROM ledger_entries WHERE note ILIKE '%$%' OR counterparty = 'AT&T' ORDER BY ts DESC",
  },
  {
    mode: 'query',
    sql: 'SELECT a.display_name, sum(l.amount) AS balance FROM accounts a JOIN ledger_entries l ON l.account_id = a.account_id GROUP BY a.display_name',
  },
  {
    mode: 'execute',
    sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-08-01', 'chase-checking', -30, 'EUR', 'spend', 'transport', 'train'), ('2026-08-02', 'chase-checking', -4.2, 'EUR', 'spend', 'food', 'coffee'), ('2026-08-03', 'chase-checking', 2500, 'EUR', 'income', 'salary', NULL) RETURNING entry_id, amount",
  },
  {
    mode: 'execute',
    sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-08-05', 'cash', -5, 'USD', 'spend', 'food', 'lunch at \"Joe''s\" -- paid $5 in cash') RETURNING entry_id",
  },
  {
    mode: 'execute',
    sql: "UPDATE ledger_entries SET category = 'groceries', note = 'corrected' WHERE external_id = 'seed-2' RETURNING entry_id",
  },
  {
    mode: 'execute',
    sql: "DELETE FROM ledger_entries WHERE external_id = 'seed-5' AND ts >= DATE '2026-08-01' RETURNING entry_id",
  },
  {
    mode: 'script',
    sql: "UPDATE account_metadata SET display_name = 'Blue card' WHERE account_id = 'chase-checking'; INSERT INTO account_metadata (account_id, display_name) SELECT 'chase-checking', 'Blue card' WHERE NOT EXISTS (SELECT 1 FROM account_metadata WHERE account_id = 'chase-checking')",
  },
];
