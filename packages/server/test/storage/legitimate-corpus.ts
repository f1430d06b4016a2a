// The guard's legitimate corpus (packages/sql-guard/test/check/legitimate.test.ts, the statements an agent
// managing expenses writes), copied verbatim so the server can run every one of them as the SQL role. It is
// written against the guard's illustrative schema (ids, key/value settings), which function-grants.test.ts creates.
// Keep it in step with the guard's file: function-grants.test.ts checks that the guard still accepts each.
const months = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06', '2026-07', '2026-08'];
const next = (m: string): string => {
  const [y, mo] = m.split('-').map(Number) as [number, number];
  return mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
};

export const queries: string[] = [
  ...months.map(
    (m) =>
      `SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ts >= DATE '${m}-01' AND ts < DATE '${next(m)}-01' GROUP BY category ORDER BY total DESC`,
  ),
  ...months.map(
    (m) =>
      `SELECT b.category, b.amount AS budget, coalesce(sum(l.amount), 0) AS actual, b.amount - coalesce(sum(l.amount), 0) AS remaining FROM budget_lines b LEFT JOIN ledger_entries l ON l.category = b.category AND l.ts >= DATE '${m}-01' AND l.ts < DATE '${next(m)}-01' GROUP BY b.category, b.amount ORDER BY remaining`,
  ),
  ...['EUR', 'USD', 'GBP', 'CHF'].map(
    (c) =>
      `SELECT l.id, l.ts, l.amount, l.currency, l.amount * r.rate AS amount_${c.toLowerCase()} FROM ledger_entries l JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = '${c}' AND r.rate_date = l.ts::date WHERE l.ts >= DATE '2026-07-01' ORDER BY l.ts`,
  ),
  "SELECT sum(l.amount * coalesce(r.rate, 1)) AS total_eur FROM ledger_entries l LEFT JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = 'EUR' AND r.rate_date = CAST(l.ts AS date)",
  'SELECT * FROM ledger_entries ORDER BY ts DESC LIMIT 20',
  "SELECT id, ts, amount, note FROM ledger_entries WHERE note ILIKE '%coffee%' ORDER BY ts DESC",
  "SELECT id, note FROM ledger_entries WHERE note NOT ILIKE '%refund%' AND amount < 0",
  'SELECT count(*) FROM ledger_entries WHERE category IS NULL',
  'SELECT DISTINCT category FROM ledger_entries ORDER BY category',
  'SELECT category, min(amount), max(amount), avg(amount) FROM ledger_entries GROUP BY category HAVING count(*) >= 3',
  'SELECT * FROM accounts ORDER BY name',
  'SELECT a.name, sum(l.amount) AS balance FROM accounts a JOIN ledger_entries l ON l.account_id = a.id GROUP BY a.name',
  'SELECT key, value FROM workspace_settings',
  "SELECT value FROM workspace_settings WHERE key = 'reporting_currency'",
  "SELECT * FROM account_metadata WHERE account_id = '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11'::uuid",
  "SELECT * FROM fx_rates_raw WHERE fetched_at >= TIMESTAMPTZ '2026-08-01 00:00:00+00' ORDER BY fetched_at DESC LIMIT 10",
  "SELECT rate FROM fx_rates_daily WHERE base_currency = 'USD' AND quote_currency = 'EUR' AND rate_date BETWEEN DATE '2026-08-01' AND DATE '2026-08-09'",
  'SELECT category, sum(amount) FILTER (WHERE amount > 0) AS income, sum(amount) FILTER (WHERE amount < 0) AS spending FROM ledger_entries GROUP BY category',
  'SELECT count(DISTINCT category) FROM ledger_entries',
  "WITH monthly AS (SELECT category, sum(amount) AS total FROM ledger_entries WHERE ts >= DATE '2026-07-01' AND ts < DATE '2026-08-01' GROUP BY category) SELECT m.category, m.total, b.amount FROM monthly m LEFT JOIN budget_lines b USING (category)",
  'WITH spent AS (SELECT category, sum(amount) AS s FROM ledger_entries GROUP BY category), planned AS (SELECT category, sum(amount) AS p FROM budget_lines GROUP BY category) SELECT coalesce(s.category, p.category) AS category, s.s, p.p FROM spent s FULL JOIN planned p ON p.category = s.category',
  "SELECT * FROM ledger_entries WHERE category IN ('food', 'groceries', 'restaurants')",
  "SELECT * FROM ledger_entries WHERE category NOT IN ('transfer')",
  "SELECT * FROM ledger_entries WHERE account_id IN (SELECT id FROM accounts WHERE name ILIKE 'checking%')",
  'SELECT * FROM ledger_entries l WHERE EXISTS (SELECT 1 FROM budget_lines b WHERE b.category = l.category)',
  'SELECT * FROM ledger_entries l WHERE NOT EXISTS (SELECT 1 FROM budget_lines b WHERE b.category = l.category)',
  "SELECT id, amount, CASE WHEN amount < 0 THEN 'expense' ELSE 'income' END AS direction FROM ledger_entries",
  'SELECT id, round_amount FROM (SELECT id, amount::numeric(12,2) AS round_amount FROM ledger_entries) s',
  "SELECT note || ' (' || category || ')' AS label FROM ledger_entries",
  "SELECT * FROM ledger_entries WHERE ts >= TIMESTAMP '2026-08-01 00:00' AND ts < TIMESTAMP '2026-08-01 00:00' + INTERVAL '1 month'",
  'SELECT * FROM ledger_entries WHERE amount BETWEEN 10 AND 100',
  'SELECT * FROM ledger_entries WHERE note IS DISTINCT FROM category',
  'SELECT category FROM ledger_entries UNION SELECT category FROM budget_lines',
  'SELECT category FROM budget_lines EXCEPT SELECT category FROM ledger_entries',
  'SELECT category, sum(amount) FROM ledger_entries GROUP BY ROLLUP (category)',
  'SELECT * FROM ledger_entries ORDER BY ts DESC NULLS LAST, id LIMIT 50 OFFSET 50',
  'SELECT * FROM ledger_entries WHERE amount > (SELECT avg(amount) FROM ledger_entries)',
  'SELECT currency, count(*) FROM ledger_entries GROUP BY currency ORDER BY 2 DESC',
  "SELECT l.* FROM ledger_entries l JOIN accounts a ON a.id = l.account_id WHERE a.name = 'Savings'",
  'SELECT TRUE AS ok',
  'SELECT 1',
  "VALUES ('food', 100), ('rent', 900)",
  'TABLE budget_lines',
  "SELECT * FROM ledger_entries WHERE note LIKE '100!%%' ESCAPE '!'",
  'SELECT \'a -- b; /* c */ $$ "d"\' AS literal',
  "SELECT id FROM ledger_entries WHERE note = 'Café Müller' AND category = 'Essen & Trinken'",
  "SELECT ts::date AS day, sum(amount) FROM ledger_entries WHERE ts >= DATE '2026-08-01' GROUP BY ts::date ORDER BY day",
  "SELECT * FROM ledger_entries WHERE (amount, currency) = (12.5, 'EUR')",
  'SELECT s.category, s.total FROM (SELECT category, sum(amount) AS total FROM ledger_entries GROUP BY category) s WHERE s.total > 100',
  'SELECT b.category, b.amount, (SELECT coalesce(sum(amount), 0) FROM ledger_entries l WHERE l.category = b.category) AS spent FROM budget_lines b',
  'SELECT DISTINCT ON (category) category, ts, amount FROM ledger_entries ORDER BY category, ts DESC',
  'SELECT * FROM ledger_entries FETCH FIRST 10 ROWS ONLY',
  'SELECT cleared IS TRUE AS cleared FROM ledger_entries',
  'SELECT -amount AS refund FROM ledger_entries WHERE amount < 0',
];

export const executes: string[] = [
  "INSERT INTO ledger_entries (ts, amount, currency, category, note) VALUES ('2026-08-09', -12.50, 'EUR', 'food', 'lunch') RETURNING id",
  "INSERT INTO ledger_entries (ts, amount, currency, category, note) VALUES ('2026-08-01', -30, 'EUR', 'transport', 'train'), ('2026-08-02', -4.2, 'EUR', 'food', 'coffee'), ('2026-08-03', 2500, 'EUR', 'salary', NULL) RETURNING id, amount",
  `INSERT INTO ledger_entries (ts, amount, currency, category, note) VALUES ${Array.from({ length: 100 }, (_, i) => `(DATE '2026-07-01' + ${i % 30}, ${-(i + 1)}.99, 'EUR', 'groceries', 'batch row ${i}')`).join(', ')}`,
  "INSERT INTO ledger_entries (ts, amount, currency, category, note, account_id) VALUES (TIMESTAMPTZ '2026-08-09 09:30:00+02', -500, 'EUR', 'transfer', 'to savings', '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11'), (TIMESTAMPTZ '2026-08-09 09:30:00+02', 500, 'EUR', 'transfer', 'from checking', '7a1e3c55-1f0e-4c1b-8f59-9b0f1d2e3a44')",
  "INSERT INTO budget_lines (category, amount, period_start) VALUES ('food', 400, DATE '2026-08-01'), ('rent', 900, DATE '2026-08-01')",
  "INSERT INTO budget_lines (category, amount, period_start) SELECT category, amount, DATE '2026-09-01' FROM budget_lines WHERE period_start = DATE '2026-08-01'",
  "INSERT INTO workspace_settings (key, value) VALUES ('reporting_currency', 'EUR')",
  "INSERT INTO account_metadata (account_id, key, value) VALUES ('2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11', 'color', 'blue')",
  "INSERT INTO ledger_entries (ts, amount, currency) VALUES ('2026-08-09', 1, 'EUR')",
  'INSERT INTO ledger_entries DEFAULT VALUES RETURNING id',
  "UPDATE ledger_entries SET category = 'groceries' WHERE id = 42",
  "UPDATE ledger_entries SET amount = -12.00, note = 'corrected' WHERE id = 43 RETURNING id, amount",
  "UPDATE ledger_entries SET category = 'restaurants' WHERE note ILIKE '%pizza%' AND category IS NULL",
  "UPDATE budget_lines SET amount = amount * 1.05 WHERE category = 'food' AND period_start = DATE '2026-08-01'",
  "UPDATE workspace_settings SET value = 'USD' WHERE key = 'reporting_currency'",
  "UPDATE account_metadata SET value = 'green' WHERE account_id = '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11' AND key = 'color'",
  "UPDATE ledger_entries l SET account_id = a.id FROM accounts a WHERE a.name = 'Cash' AND l.note ILIKE '%cash%'",
  "UPDATE ledger_entries SET (amount, currency) = (10, 'EUR') WHERE id = 44",
  "UPDATE ledger_entries SET note = NULL WHERE note = ''",
  "UPDATE ledger_entries SET ts = ts + INTERVAL '1 day' WHERE id = 45",
  'DELETE FROM ledger_entries WHERE id = 46',
  "DELETE FROM ledger_entries WHERE note = 'duplicate' AND ts >= DATE '2026-08-01' RETURNING id",
  "DELETE FROM budget_lines WHERE period_start < DATE '2026-01-01'",
  "DELETE FROM account_metadata WHERE key = 'color' AND account_id = '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11'",
  "DELETE FROM ledger_entries l USING accounts a WHERE a.id = l.account_id AND a.name = 'Old card'",
  "DELETE FROM workspace_settings WHERE key = 'obsolete'",
  "WITH moved AS (DELETE FROM ledger_entries WHERE id = 47 RETURNING ts, amount, currency, category) INSERT INTO ledger_entries (ts, amount, currency, category, note) SELECT ts, amount, currency, category, 'moved' FROM moved",
  'WITH src AS (SELECT category, sum(amount) AS total FROM ledger_entries GROUP BY category) UPDATE budget_lines b SET amount = src.total FROM src WHERE src.category = b.category',
];

export const scripts: string[] = [
  "UPDATE account_metadata SET value = 'blue' WHERE account_id = '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11' AND key = 'color'; INSERT INTO account_metadata (account_id, key, value) SELECT '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11', 'color', 'blue' WHERE NOT EXISTS (SELECT 1 FROM account_metadata WHERE account_id = '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11' AND key = 'color');",
  "INSERT INTO ledger_entries (ts, amount, currency, category, note) VALUES ('2026-08-09', -100, 'EUR', 'transfer', 'out'); INSERT INTO ledger_entries (ts, amount, currency, category, note) VALUES ('2026-08-09', 100, 'EUR', 'transfer', 'in')",
  "UPDATE workspace_settings SET value = 'EUR' WHERE key = 'reporting_currency'; INSERT INTO workspace_settings (key, value) SELECT 'reporting_currency', 'EUR' WHERE NOT EXISTS (SELECT 1 FROM workspace_settings WHERE key = 'reporting_currency')",
  'SELECT count(*) FROM ledger_entries; DELETE FROM ledger_entries WHERE id = 50; SELECT count(*) FROM ledger_entries;',
  "DELETE FROM budget_lines WHERE period_start = DATE '2026-09-01'; INSERT INTO budget_lines (category, amount, period_start) VALUES ('food', 420, DATE '2026-09-01')",
  "WITH d AS (DELETE FROM ledger_entries WHERE note = 'test' RETURNING id) SELECT count(*) FROM d",
  'SELECT 1;',
  "UPDATE ledger_entries SET category = 'food' WHERE id = 1;\nUPDATE ledger_entries SET category = 'rent' WHERE id = 2;\nUPDATE ledger_entries SET category = 'travel' WHERE id = 3;",
  "INSERT INTO budget_lines (category, amount) VALUES ('gifts', 50); SELECT * FROM budget_lines WHERE category = 'gifts'",
  "SELECT * FROM accounts; SELECT * FROM fx_rates_daily WHERE rate_date = DATE '2026-08-08'",
];
