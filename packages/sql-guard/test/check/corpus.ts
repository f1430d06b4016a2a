/**
 * The legitimate corpus: statements an agent managing expenses writes, over the real columns of the
 * expense dialect. Every one must be accepted (legitimate.test.ts) and must run on PostgreSQL, PGlite and
 * the PGlite worker host (test/check/engines.test.ts).
 */
import { corpus as benchCorpus } from '../../bench/corpus.js';
import type { Mode } from '../../src/types.js';

const months = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06', '2026-07', '2026-08'];
const next = (m: string): string => {
  const [y, mo] = m.split('-').map(Number) as [number, number];
  return mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
};
const CHECKING = 'chase-checking';
const SAVINGS = 'savings';

/** The 12-month report with zero months (README, WITH RECURSIVE). */
export const monthlyReport = `WITH RECURSIVE months(m) AS (
  SELECT TIMESTAMPTZ '2026-01-01 00:00:00'
  UNION ALL
  SELECT m + INTERVAL '1 month' FROM months WHERE m < TIMESTAMPTZ '2026-12-01 00:00:00'
)
SELECT months.m::date AS month, coalesce(sum(l.amount), 0) AS total
FROM months
LEFT JOIN ledger_entries l ON l.ts >= months.m AND l.ts < months.m + INTERVAL '1 month' AND l.kind = 'spend'
GROUP BY months.m
ORDER BY months.m`;

export const queries: string[] = [
  ...months.map(
    (m) =>
      `SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ts >= DATE '${m}-01' AND ts < DATE '${next(m)}-01' GROUP BY category ORDER BY total DESC`,
  ),
  ...months.map(
    (m) =>
      `SELECT b.category, b.planned_value AS budget, coalesce(sum(l.amount), 0) AS actual, b.planned_value + coalesce(sum(l.amount), 0) AS remaining FROM budget_lines b LEFT JOIN ledger_entries l ON l.category = b.category AND l.ts >= DATE '${m}-01' AND l.ts < DATE '${next(m)}-01' WHERE b.budget_month = DATE '${m}-01' GROUP BY b.category, b.planned_value ORDER BY remaining`,
  ),
  ...['EUR', 'USD', 'GBP', 'CHF'].map(
    (c) =>
      `SELECT l.entry_id, l.ts, l.amount, l.currency, l.amount * r.rate AS amount_${c.toLowerCase()} FROM ledger_entries l JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = '${c}' AND r.calendar_date = l.ts::date WHERE l.ts >= DATE '2026-07-01' ORDER BY l.ts`,
  ),
  "SELECT sum(l.amount * coalesce(r.rate, 1)) AS total_eur FROM ledger_entries l LEFT JOIN fx_rates_daily r ON r.base_currency = l.currency AND r.quote_currency = 'EUR' AND r.calendar_date = CAST(l.ts AS date)",
  'SELECT * FROM ledger_entries ORDER BY ts DESC LIMIT 20',
  "SELECT entry_id, ts, amount, note FROM ledger_entries WHERE note ILIKE '%coffee%' ORDER BY ts DESC",
  "SELECT entry_id, note FROM ledger_entries WHERE note NOT ILIKE '%refund%' AND amount < 0",
  'SELECT count(*) FROM ledger_entries WHERE category IS NULL',
  'SELECT DISTINCT category FROM ledger_entries ORDER BY category',
  'SELECT category, min(amount), max(amount), avg(amount) FROM ledger_entries GROUP BY category HAVING count(*) >= 3',
  'SELECT * FROM accounts ORDER BY display_name',
  'SELECT a.display_name, sum(l.amount) AS balance FROM accounts a JOIN ledger_entries l ON l.account_id = a.account_id GROUP BY a.display_name',
  'SELECT reporting_currency, timezone FROM workspace_settings',
  'SELECT reporting_currency FROM workspace_settings WHERE first_day_of_week = 1',
  `SELECT * FROM account_metadata WHERE account_id = '${CHECKING}'`,
  "SELECT * FROM fx_rates_raw WHERE inserted_at >= TIMESTAMPTZ '2026-08-01 00:00:00+00' ORDER BY inserted_at DESC LIMIT 10",
  "SELECT rate FROM fx_rates_daily WHERE base_currency = 'USD' AND quote_currency = 'EUR' AND calendar_date BETWEEN DATE '2026-08-01' AND DATE '2026-08-09'",
  'SELECT category, sum(amount) FILTER (WHERE amount > 0) AS income, sum(amount) FILTER (WHERE amount < 0) AS spending FROM ledger_entries GROUP BY category',
  'SELECT count(DISTINCT category) FROM ledger_entries',
  "WITH monthly AS (SELECT category, sum(amount) AS total FROM ledger_entries WHERE ts >= DATE '2026-07-01' AND ts < DATE '2026-08-01' GROUP BY category) SELECT m.category, m.total, b.planned_value FROM monthly m LEFT JOIN budget_lines b USING (category)",
  'WITH spent AS (SELECT category, sum(amount) AS s FROM ledger_entries GROUP BY category), planned AS (SELECT category, sum(planned_value) AS p FROM budget_lines GROUP BY category) SELECT coalesce(s.category, p.category) AS category, s.s, p.p FROM spent s FULL JOIN planned p ON p.category = s.category',
  "SELECT * FROM ledger_entries WHERE category IN ('food', 'groceries', 'restaurants')",
  "SELECT * FROM ledger_entries WHERE category NOT IN ('transfer')",
  "SELECT * FROM ledger_entries WHERE account_id IN (SELECT account_id FROM accounts WHERE display_name ILIKE 'checking%')",
  'SELECT * FROM ledger_entries l WHERE EXISTS (SELECT 1 FROM budget_lines b WHERE b.category = l.category)',
  'SELECT * FROM ledger_entries l WHERE NOT EXISTS (SELECT 1 FROM budget_lines b WHERE b.category = l.category)',
  "SELECT entry_id, amount, CASE WHEN amount < 0 THEN 'expense' ELSE 'income' END AS direction FROM ledger_entries",
  'SELECT entry_id, round_amount FROM (SELECT entry_id, amount::numeric(12,2) AS round_amount FROM ledger_entries) s',
  "SELECT note || ' (' || category || ')' AS label FROM ledger_entries",
  "SELECT * FROM ledger_entries WHERE ts >= TIMESTAMP '2026-08-01 00:00' AND ts < TIMESTAMP '2026-08-01 00:00' + INTERVAL '1 month'",
  'SELECT * FROM ledger_entries WHERE amount BETWEEN 10 AND 100',
  'SELECT * FROM ledger_entries WHERE note IS DISTINCT FROM category',
  'SELECT category FROM ledger_entries UNION SELECT category FROM budget_lines',
  'SELECT category FROM budget_lines EXCEPT SELECT category FROM ledger_entries',
  'SELECT category, sum(amount) FROM ledger_entries GROUP BY ROLLUP (category)',
  'SELECT * FROM ledger_entries ORDER BY ts DESC NULLS LAST, entry_id LIMIT 50 OFFSET 50',
  'SELECT * FROM ledger_entries WHERE amount > (SELECT avg(amount) FROM ledger_entries)',
  'SELECT currency, count(*) FROM ledger_entries GROUP BY currency ORDER BY 2 DESC',
  "SELECT l.* FROM ledger_entries l JOIN accounts a ON a.account_id = l.account_id WHERE a.display_name = 'Savings'",
  'SELECT TRUE AS ok',
  'SELECT 1',
  "VALUES ('food', 100), ('rent', 900)",
  'TABLE budget_lines',
  "SELECT * FROM ledger_entries WHERE note LIKE '100!%%' ESCAPE '!'",
  'SELECT \'a -- b; /* c */ $$ "d"\' AS literal',
  "SELECT entry_id FROM ledger_entries WHERE note = 'Café Müller' AND category = 'Essen & Trinken'",
  "SELECT ts::date AS day, sum(amount) FROM ledger_entries WHERE ts >= DATE '2026-08-01' GROUP BY ts::date ORDER BY day",
  "SELECT * FROM ledger_entries WHERE (amount, currency) = (12.5, 'EUR')",
  'SELECT s.category, s.total FROM (SELECT category, sum(amount) AS total FROM ledger_entries GROUP BY category) s WHERE s.total > 100',
  'SELECT b.category, b.planned_value, (SELECT coalesce(sum(amount), 0) FROM ledger_entries l WHERE l.category = b.category) AS spent FROM budget_lines b',
  'SELECT DISTINCT ON (category) category, ts, amount FROM ledger_entries ORDER BY category, ts DESC',
  'SELECT * FROM ledger_entries FETCH FIRST 10 ROWS ONLY',
  'SELECT is_archived IS TRUE AS archived FROM account_metadata',
  'SELECT -amount AS refund FROM ledger_entries WHERE amount < 0',
  // Output names of subqueries and CTEs: aliases, column lists, VALUES, function and cast names.
  'SELECT s.sum, s.count FROM (SELECT sum(amount), count(*) FROM ledger_entries) s',
  "SELECT v.category, v.share FROM (VALUES ('food', 0.5), ('rent', 0.3)) AS v(category, share) JOIN budget_lines b USING (category)",
  'SELECT t.column1 FROM (VALUES (1), (2)) t ORDER BY column1',
  'WITH c(cat, n) AS (SELECT category, count(*) FROM ledger_entries GROUP BY category) SELECT c.cat, c.n FROM c ORDER BY n DESC',
  'SELECT x.ts FROM (SELECT ts::date FROM ledger_entries) x',
  'SELECT l.category, j.total FROM ledger_entries l JOIN LATERAL (SELECT sum(b.planned_value) AS total FROM budget_lines b WHERE b.category = l.category) j ON true',
  'SELECT category, count(*) AS n FROM ledger_entries GROUP BY 1 ORDER BY n DESC, category',
  'SELECT category AS c FROM ledger_entries GROUP BY c ORDER BY c',
  'SELECT a.account_id, m.display_name FROM accounts a NATURAL JOIN account_metadata m',
  'SELECT account_id, currency, balance FROM accounts WHERE entry_count > 0',
  'SELECT (SELECT max(ts) FROM ledger_entries) AS latest',
  monthlyReport,
];

export const executes: string[] = [
  // The CLI's import shape: text values from a VALUES list cast to their columns' types, skipping known ids.
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, external_id) SELECT v.ts::timestamptz, v.account_id, v.amount::numeric, v.currency, v.kind, v.external_id FROM (VALUES ('2026-11-01', '${CHECKING}', '-3.20', 'EUR', 'spend', 'csv:1')) AS v (ts, account_id, amount, currency, kind, external_id) WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.external_id = v.external_id)`,
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-08-09', '${CHECKING}', -12.50, 'EUR', 'spend', 'food', 'lunch') RETURNING entry_id`,
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-08-01', '${CHECKING}', -30, 'EUR', 'spend', 'transport', 'train'), ('2026-08-02', '${CHECKING}', -4.2, 'EUR', 'spend', 'food', 'coffee'), ('2026-08-03', '${CHECKING}', 2500, 'EUR', 'income', 'salary', NULL) RETURNING entry_id, amount`,
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ${Array.from({ length: 100 }, (_, i) => `(DATE '2026-07-01' + ${i % 30}, '${CHECKING}', ${-(i + 1)}.99, 'EUR', 'spend', 'groceries', 'batch row ${i}')`).join(', ')}`,
  `INSERT INTO ledger_entries (ts, amount, currency, kind, note, account_id, event_id) VALUES (TIMESTAMPTZ '2026-08-09 09:30:00+02', -500, 'EUR', 'transfer', 'to savings', '${CHECKING}', 'move-1'), (TIMESTAMPTZ '2026-08-09 09:30:00+02', 500, 'EUR', 'transfer', 'from checking', '${SAVINGS}', 'move-1')`,
  "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES (DATE '2026-09-01', 'spend', 'food', 'EUR', 400), (DATE '2026-09-01', 'spend', 'rent', 'EUR', 900)",
  "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) SELECT DATE '2026-10-01', direction, category, currency, planned_value FROM budget_lines WHERE budget_month = DATE '2026-08-01'",
  "INSERT INTO workspace_settings (reporting_currency, timezone) VALUES ('EUR', 'Europe/Berlin')",
  `INSERT INTO account_metadata (account_id, display_name, account_type, liquidity) VALUES ('new-card', 'New card', 'credit_card', 'high')`,
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES ('2026-08-09', '${CHECKING}', 1, 'EUR', 'income')`,
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, external_id) VALUES ('2026-08-09', '${CHECKING}', 1, 'EUR', 'income', 'import-77') RETURNING *`,
  "UPDATE ledger_entries SET category = 'groceries' WHERE external_id = 'seed-1'",
  "UPDATE ledger_entries SET amount = -12.00, note = 'corrected' WHERE external_id = 'seed-2' RETURNING entry_id, amount",
  "UPDATE ledger_entries SET category = 'restaurants' WHERE note ILIKE '%pizza%' AND category IS NULL",
  "UPDATE budget_lines SET planned_value = planned_value * 1.05 WHERE category = 'food' AND budget_month = DATE '2026-08-01'",
  "UPDATE workspace_settings SET reporting_currency = 'USD'",
  `UPDATE account_metadata SET display_name = 'Green card' WHERE account_id = '${CHECKING}'`,
  "UPDATE ledger_entries l SET account_id = a.account_id FROM accounts a WHERE a.display_name = 'Cash' AND l.note ILIKE '%cash%'",
  "UPDATE ledger_entries SET (amount, currency) = (10, 'EUR') WHERE external_id = 'seed-3'",
  "UPDATE ledger_entries SET note = NULL WHERE note = ''",
  "UPDATE ledger_entries SET ts = ts + INTERVAL '1 day' WHERE external_id = 'seed-4'",
  "DELETE FROM ledger_entries WHERE external_id = 'seed-5'",
  "DELETE FROM ledger_entries WHERE note = 'duplicate' AND ts >= DATE '2026-08-01' RETURNING entry_id",
  "DELETE FROM budget_lines WHERE budget_month < DATE '2026-01-01'",
  `DELETE FROM account_metadata WHERE account_type = 'loan' AND account_id = '${CHECKING}'`,
  "DELETE FROM ledger_entries l USING accounts a WHERE a.account_id = l.account_id AND a.display_name = 'Old card'",
  "DELETE FROM workspace_settings WHERE timezone = 'Mars/Olympus'",
  "WITH moved AS (DELETE FROM ledger_entries WHERE external_id = 'seed-6' RETURNING ts, amount, currency, kind, category) INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) SELECT ts, 'savings', amount, currency, kind, category, 'moved' FROM moved",
  'WITH src AS (SELECT category, sum(amount) AS total FROM ledger_entries GROUP BY category) UPDATE budget_lines b SET planned_value = -src.total FROM src WHERE src.category = b.category AND src.total < 0',
  "WITH RECURSIVE months(m) AS (SELECT DATE '2027-01-01' UNION ALL SELECT (m + INTERVAL '1 month')::date FROM months WHERE m < DATE '2027-12-01') INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) SELECT m, 'spend', 'rent', 'EUR', 900 FROM months",
];

export const scripts: string[] = [
  `UPDATE account_metadata SET display_name = 'Blue card' WHERE account_id = '${CHECKING}'; INSERT INTO account_metadata (account_id, display_name) SELECT '${CHECKING}', 'Blue card' WHERE NOT EXISTS (SELECT 1 FROM account_metadata WHERE account_id = '${CHECKING}');`,
  `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ('2026-08-09', '${CHECKING}', -100, 'EUR', 'transfer', 'out'); INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ('2026-08-09', '${SAVINGS}', 100, 'EUR', 'transfer', 'in')`,
  "UPDATE workspace_settings SET reporting_currency = 'EUR'; INSERT INTO workspace_settings (reporting_currency) SELECT 'EUR' WHERE NOT EXISTS (SELECT 1 FROM workspace_settings)",
  "SELECT count(*) FROM ledger_entries; DELETE FROM ledger_entries WHERE external_id = 'seed-7'; SELECT count(*) FROM ledger_entries;",
  "DELETE FROM budget_lines WHERE budget_month = DATE '2026-09-01'; INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES (DATE '2026-09-01', 'spend', 'food', 'EUR', 420)",
  "WITH d AS (DELETE FROM ledger_entries WHERE note = 'test' RETURNING entry_id) SELECT count(*) FROM d",
  'SELECT 1;',
  "UPDATE ledger_entries SET category = 'food' WHERE external_id = 'seed-1';\nUPDATE ledger_entries SET category = 'rent' WHERE external_id = 'seed-2';\nUPDATE ledger_entries SET category = 'travel' WHERE external_id = 'seed-3';",
  "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES (DATE '2026-11-01', 'spend', 'gifts', 'EUR', 50); SELECT * FROM budget_lines WHERE category = 'gifts'",
  "SELECT * FROM accounts; SELECT * FROM fx_rates_daily WHERE calendar_date = DATE '2026-08-08'",
];

/** Statements whose names resolve only with PostgreSQL's scoping and column naming (names.test.ts). */
export const resolvedQueries: string[] = [
  'SELECT l.* FROM ledger_entries l',
  'SELECT *, l.* FROM ledger_entries l JOIN budget_lines b USING (category)',
  'SELECT x.a FROM (SELECT 1 AS a) x',
  'SELECT x.json_agg FROM (SELECT amount AS json_agg FROM ledger_entries) x',
  'SELECT s.sum, s.count FROM (SELECT sum(amount), count(*) FROM ledger_entries) s',
  'SELECT s.int4 FROM (SELECT 1::integer) s',
  'SELECT s.amount FROM (SELECT CASE WHEN true THEN 1 ELSE amount END FROM ledger_entries) s',
  'SELECT s.case FROM (SELECT CASE WHEN true THEN 1 END) s',
  'SELECT s.coalesce FROM (SELECT coalesce(note, category) FROM ledger_entries) s',
  'SELECT s.exists FROM (SELECT EXISTS (SELECT 1)) s',
  'SELECT s.m FROM (SELECT (SELECT max(amount) AS m FROM ledger_entries)) s',
  "SELECT s.date FROM (SELECT DATE '2026-01-01') s",
  'SELECT v.column2 FROM (VALUES (1, 2)) v',
  'WITH c(a) AS (SELECT amount, note FROM ledger_entries) SELECT c.a, c.note FROM c',
  'SELECT j.category, j.amount FROM (ledger_entries l JOIN budget_lines b USING (category)) j',
  'SELECT u.category, l.note, b.note FROM ledger_entries l JOIN budget_lines b USING (category) AS u',
  'SELECT category FROM ledger_entries NATURAL JOIN budget_lines',
  'SELECT 1 FROM fx_rates_daily f WHERE EXISTS (SELECT 1 FROM ledger_entries l WHERE f.rate > l.amount)',
  'SELECT 1 FROM ledger_entries l, LATERAL (SELECT l.note) s',
  'SELECT 1 FROM ledger_entries l JOIN LATERAL (SELECT l.note AS n) s ON s.n = l.note',
  'SELECT amount AS json_agg FROM ledger_entries ORDER BY json_agg',
  'SELECT category AS c, count(*) FROM ledger_entries GROUP BY c',
  'SELECT DISTINCT ON (c) category AS c FROM ledger_entries ORDER BY c',
  'SELECT note FROM ledger_entries UNION SELECT note FROM budget_lines ORDER BY note',
  'VALUES (1), (2) ORDER BY column1',
  'SELECT 1 FROM ledger_entries l WHERE l.note = (SELECT b.note FROM budget_lines b WHERE b.category = l.category LIMIT 1)',
];

export const resolvedExecutes: string[] = [
  "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES ('2026-01-01', 'a', 1, 'EUR', 'spend') RETURNING *",
  'UPDATE ledger_entries l SET note = a.display_name FROM accounts a WHERE a.account_id = l.account_id RETURNING l.*, a.balance',
  'DELETE FROM ledger_entries l USING accounts a WHERE a.account_id = l.account_id RETURNING l.entry_id',
  "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) SELECT DATE '2026-12-01', 'spend', category, 'EUR', -sum(amount) FROM ledger_entries WHERE amount < 0 AND category IS NOT NULL GROUP BY category",
];

export const cases: [string, Mode][] = [
  ...queries.map((q): [string, Mode] => [q, 'query']),
  ...executes.map((q): [string, Mode] => [q, 'execute']),
  ...scripts.map((q): [string, Mode] => [q, 'script']),
  // Everything that works alone also works in a script.
  ...queries.slice(0, 10).map((q): [string, Mode] => [q, 'script']),
];

/** Every legitimate statement: the cases above, the benchmark corpus and the name-resolution corpora. */
export const allCorpora: [string, Mode][] = [
  ...cases,
  ...benchCorpus.map((c): [string, Mode] => [c.sql, c.mode]),
  ...resolvedQueries.map((q): [string, Mode] => [q, 'query']),
  ...resolvedExecutes.map((q): [string, Mode] => [q, 'execute']),
];
