import type { Mode } from '../src/types.js';

/** Typical statements an agent managing expenses sends, with the mode it sends them in. */
export const corpus: { sql: string; mode: Mode }[] = [
  {
    mode: 'query',
    sql: "SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ts >= DATE '2026-07-01' AND ts < DATE '2026-08-01' GROUP BY category ORDER BY total DESC",
  },
  {
    mode: 'query',
    sql: "SELECT b.category, b.amount AS budget, coalesce(sum(l.amount), 0) AS actual FROM budget_lines b LEFT JOIN ledger_entries l ON l.category = b.category AND l.ts >= DATE '2026-07-01' AND l.ts < DATE '2026-08-01' GROUP BY b.category, b.amount ORDER BY b.category",
  },
  {
    mode: 'query',
    sql: "SELECT l.id, l.ts, l.amount, l.currency, l.amount * r.rate AS amount_eur FROM ledger_entries l JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = 'EUR' AND r.rate_date = l.ts::date WHERE l.ts >= DATE '2026-07-01' ORDER BY l.ts",
  },
  { mode: 'query', sql: 'SELECT * FROM ledger_entries ORDER BY ts DESC LIMIT 20' },
  {
    mode: 'query',
    sql: "SELECT id, ts, amount, note FROM ledger_entries WHERE note ILIKE '%coffee%' ORDER BY ts DESC",
  },
  {
    mode: 'query',
    sql: "WITH monthly AS (SELECT category, sum(amount) AS total FROM ledger_entries WHERE ts >= DATE '2026-07-01' AND ts < DATE '2026-08-01' GROUP BY category) SELECT m.category, m.total, b.amount FROM monthly m LEFT JOIN budget_lines b ON b.category = m.category",
  },
  { mode: 'query', sql: "SELECT value FROM workspace_settings WHERE key = 'reporting_currency'" },
  {
    mode: 'query',
    sql: 'SELECT a.name, sum(l.amount) AS balance FROM accounts a JOIN ledger_entries l ON l.account_id = a.id GROUP BY a.name',
  },
  {
    mode: 'execute',
    sql: "INSERT INTO ledger_entries (ts, amount, currency, category, note) VALUES ('2026-08-01', -30, 'EUR', 'transport', 'train'), ('2026-08-02', -4.2, 'EUR', 'food', 'coffee'), ('2026-08-03', 2500, 'EUR', 'salary', NULL) RETURNING id, amount",
  },
  {
    mode: 'execute',
    sql: "UPDATE ledger_entries SET category = 'groceries', note = 'corrected' WHERE id = 42 RETURNING id",
  },
  {
    mode: 'execute',
    sql: "DELETE FROM ledger_entries WHERE id = 46 AND ts >= DATE '2026-08-01' RETURNING id",
  },
  {
    mode: 'script',
    sql: "UPDATE account_metadata SET value = 'blue' WHERE account_id = 7 AND key = 'color'; INSERT INTO account_metadata (account_id, key, value) SELECT 7, 'color', 'blue' WHERE NOT EXISTS (SELECT 1 FROM account_metadata WHERE account_id = 7 AND key = 'color')",
  },
];
