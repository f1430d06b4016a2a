/**
 * The expense relations with the columns, types and constraints of migrations 0002/0003 (without the
 * server's roles, foreign keys and row-level security), and a few rows: enough for the corpora to run.
 */
export const expenseSchema = `
CREATE TABLE ledger_entries (
  entry_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001',
  event_id text, ts timestamptz NOT NULL, account_id text NOT NULL, amount numeric NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  kind text NOT NULL CHECK (kind IN ('income', 'spend', 'transfer')),
  category text, counterparty text, note text, external_id text,
  inserted_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (kind <> 'transfer' OR category IS NULL), UNIQUE (workspace_id, external_id)
);
CREATE TABLE budget_lines (
  line_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001',
  budget_month date NOT NULL CHECK (extract(day FROM budget_month) = 1),
  direction text NOT NULL CHECK (direction IN ('income', 'spend')),
  category text NOT NULL, currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  planned_value numeric NOT NULL CHECK (planned_value > 0), note text,
  inserted_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, budget_month, direction, category)
);
CREATE TABLE workspace_settings (
  workspace_id uuid PRIMARY KEY DEFAULT '00000000-0000-4000-8000-000000000001',
  reporting_currency text NOT NULL DEFAULT 'USD', first_day_of_week smallint NOT NULL DEFAULT 1,
  timezone text NOT NULL DEFAULT 'UTC', updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE account_metadata (
  workspace_id uuid NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001',
  account_id text NOT NULL, display_name text, account_type text, liquidity text,
  is_archived boolean NOT NULL DEFAULT false, note text,
  inserted_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, account_id)
);
CREATE VIEW accounts AS
WITH totals AS (
  SELECT e.workspace_id, e.account_id, e.currency,
         sum(e.amount) AS balance, count(*) AS entry_count, min(e.ts) AS first_ts, max(e.ts) AS last_ts
  FROM ledger_entries AS e GROUP BY e.workspace_id, e.account_id, e.currency
)
SELECT coalesce(t.account_id, m.account_id) AS account_id, t.currency, coalesce(t.balance, 0) AS balance,
       coalesce(t.entry_count, 0) AS entry_count, t.first_ts, t.last_ts, m.display_name, m.account_type,
       m.liquidity, coalesce(m.is_archived, false) AS is_archived, m.note
FROM totals AS t FULL JOIN account_metadata AS m ON m.workspace_id = t.workspace_id AND m.account_id = t.account_id;
CREATE TABLE fx_rates_raw (
  base_currency text NOT NULL, quote_currency text NOT NULL, rate_date date NOT NULL,
  rate numeric NOT NULL CHECK (rate > 0), source text NOT NULL, inserted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (base_currency, quote_currency, rate_date, source)
);
CREATE TABLE fx_rates_daily (
  base_currency text NOT NULL, quote_currency text NOT NULL, calendar_date date NOT NULL,
  rate numeric NOT NULL CHECK (rate > 0), source_rate_date date NOT NULL,
  PRIMARY KEY (base_currency, quote_currency, calendar_date)
);
INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note, external_id) VALUES
  ('2026-07-03 12:00+00', 'chase-checking', -4.50, 'EUR', 'spend', 'food', 'coffee', 'seed-1'),
  ('2026-07-05 08:00+00', 'chase-checking', -38.20, 'USD', 'spend', 'groceries', 'market', 'seed-2'),
  ('2026-07-20 09:00+00', 'chase-checking', 2500, 'EUR', 'income', 'salary', NULL, 'seed-3'),
  ('2026-08-01 10:00+00', 'cash', -12, 'EUR', 'spend', NULL, 'pizza cash', 'seed-4'),
  ('2026-08-02 10:00+00', 'cash', -3, 'GBP', 'spend', 'food', 'duplicate', 'seed-5'),
  ('2026-08-03 10:00+00', 'chase-checking', -900, 'EUR', 'spend', 'rent', 'August', 'seed-6'),
  ('2026-08-04 10:00+00', 'chase-checking', -20, 'CHF', 'spend', 'food', 'test', 'seed-7');
INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES
  ('2026-08-01', 'spend', 'food', 'EUR', 300), ('2026-08-01', 'spend', 'rent', 'EUR', 900),
  ('2026-07-01', 'spend', 'food', 'EUR', 280);
INSERT INTO account_metadata (account_id, display_name, account_type, liquidity) VALUES
  ('chase-checking', 'Checking', 'checking', 'high'), ('cash', 'Cash', 'cash', 'high');
INSERT INTO fx_rates_raw (base_currency, quote_currency, rate_date, rate, source) VALUES
  ('USD', 'EUR', '2026-08-07', 0.91, 'ecb');
INSERT INTO fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date) VALUES
  ('USD', 'EUR', '2026-07-05', 0.92, '2026-07-04'), ('GBP', 'EUR', '2026-08-02', 1.17, '2026-08-01'),
  ('EUR', 'EUR', '2026-07-03', 1, '2026-07-03'), ('USD', 'EUR', '2026-08-08', 0.91, '2026-08-07');
`;
