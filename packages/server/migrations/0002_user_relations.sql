-- The four writable workspace relations and the accounts view, in schema public so unqualified names resolve.
-- workspace_id defaults to the transaction's workspace (setting expense.workspace_id, set by the server).

CREATE FUNCTION expense_internal.check_workspace_settings() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  -- A CHECK cannot consult the time zone database; validate only when the name changes (the lookup is slow).
  IF NEW.timezone <> 'UTC' AND (TG_OP = 'INSERT' OR NEW.timezone IS DISTINCT FROM OLD.timezone)
     AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_names WHERE name = NEW.timezone) THEN
    RAISE EXCEPTION USING
      ERRCODE = 'check_violation',
      MESSAGE = format('"%s" is not an IANA time zone name', NEW.timezone),
      HINT = 'Use a name such as Europe/Berlin, America/New_York or UTC.',
      SCHEMA = 'public', TABLE = 'workspace_settings', COLUMN = 'timezone',
      CONSTRAINT = 'workspace_settings_timezone_check';
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END
$fn$;

CREATE TABLE public.ledger_entries (
  entry_id     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL DEFAULT nullif(current_setting('expense.workspace_id', true), '')::uuid
               REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  event_id     text CHECK (char_length(event_id) BETWEEN 1 AND 200),
  ts           timestamptz NOT NULL,
  account_id   text NOT NULL CHECK (char_length(account_id) BETWEEN 1 AND 200 AND btrim(account_id) <> ''),
  amount       numeric NOT NULL,
  currency     text NOT NULL CONSTRAINT ledger_entries_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  kind         text NOT NULL CHECK (kind IN ('income', 'spend', 'transfer')),
  category     text CHECK (char_length(category) BETWEEN 1 AND 200),
  counterparty text CHECK (char_length(counterparty) <= 500),
  note         text CHECK (char_length(note) <= 2000),
  external_id  text CHECK (char_length(external_id) BETWEEN 1 AND 200),
  inserted_at  timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ledger_entries_transfer_without_category CHECK (kind <> 'transfer' OR category IS NULL),
  CONSTRAINT ledger_entries_external_id_key UNIQUE (workspace_id, external_id)
);
CREATE INDEX ledger_entries_workspace_ts_idx ON public.ledger_entries (workspace_id, ts);
CREATE INDEX ledger_entries_workspace_account_idx ON public.ledger_entries (workspace_id, account_id, ts);
CREATE INDEX ledger_entries_workspace_event_idx ON public.ledger_entries (workspace_id, event_id)
  WHERE event_id IS NOT NULL;

CREATE TABLE public.budget_lines (
  line_id       uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL DEFAULT nullif(current_setting('expense.workspace_id', true), '')::uuid
                REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  budget_month  date NOT NULL CONSTRAINT budget_lines_first_of_month CHECK (extract(day FROM budget_month) = 1),
  direction     text NOT NULL CHECK (direction IN ('income', 'spend')),
  category      text NOT NULL CHECK (char_length(category) BETWEEN 1 AND 200 AND btrim(category) <> ''),
  currency      text NOT NULL CONSTRAINT budget_lines_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
  planned_value numeric NOT NULL CONSTRAINT budget_lines_planned_value_positive CHECK (planned_value > 0),
  note          text CHECK (char_length(note) <= 2000),
  inserted_at   timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT budget_lines_month_direction_category_key UNIQUE (workspace_id, budget_month, direction, category)
);

CREATE TABLE public.workspace_settings (
  workspace_id       uuid PRIMARY KEY DEFAULT nullif(current_setting('expense.workspace_id', true), '')::uuid
                     REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  reporting_currency text NOT NULL DEFAULT 'USD'
                     CONSTRAINT workspace_settings_currency_check CHECK (reporting_currency ~ '^[A-Z]{3}$'),
  first_day_of_week  smallint NOT NULL DEFAULT 1 CHECK (first_day_of_week BETWEEN 1 AND 7),
  timezone           text NOT NULL DEFAULT 'UTC' CHECK (char_length(timezone) BETWEEN 1 AND 64),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE public.account_metadata (
  workspace_id uuid NOT NULL DEFAULT nullif(current_setting('expense.workspace_id', true), '')::uuid
               REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  account_id   text NOT NULL CHECK (char_length(account_id) BETWEEN 1 AND 200 AND btrim(account_id) <> ''),
  display_name text CHECK (char_length(display_name) BETWEEN 1 AND 200),
  account_type text CHECK (account_type IN ('checking', 'savings', 'credit_card', 'cash', 'investment', 'loan', 'other')),
  liquidity    text CHECK (liquidity IN ('high', 'medium', 'low')),
  is_archived  boolean NOT NULL DEFAULT false,
  note         text CHECK (char_length(note) <= 2000),
  inserted_at  timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, account_id)
);

CREATE TRIGGER ledger_entries_touch BEFORE UPDATE ON public.ledger_entries
  FOR EACH ROW EXECUTE FUNCTION expense_internal.touch_updated_at();
CREATE TRIGGER budget_lines_touch BEFORE UPDATE ON public.budget_lines
  FOR EACH ROW EXECUTE FUNCTION expense_internal.touch_updated_at();
CREATE TRIGGER account_metadata_touch BEFORE UPDATE ON public.account_metadata
  FOR EACH ROW EXECUTE FUNCTION expense_internal.touch_updated_at();
CREATE TRIGGER workspace_settings_check BEFORE INSERT OR UPDATE ON public.workspace_settings
  FOR EACH ROW EXECUTE FUNCTION expense_internal.check_workspace_settings();

-- One row per (account_id, currency) seen in the ledger, plus metadata-only accounts (currency NULL).
-- security_invoker: the caller's row-level security applies to both tables underneath.
CREATE VIEW public.accounts WITH (security_invoker = true) AS
WITH totals AS (
  SELECT e.workspace_id, e.account_id, e.currency,
         sum(e.amount) AS balance, count(*) AS entry_count, min(e.ts) AS first_ts, max(e.ts) AS last_ts
  FROM public.ledger_entries AS e
  GROUP BY e.workspace_id, e.account_id, e.currency
)
SELECT coalesce(t.account_id, m.account_id) AS account_id,
       t.currency,
       coalesce(t.balance, 0) AS balance,
       coalesce(t.entry_count, 0) AS entry_count,
       t.first_ts,
       t.last_ts,
       m.display_name,
       m.account_type,
       m.liquidity,
       coalesce(m.is_archived, false) AS is_archived,
       m.note
FROM totals AS t
FULL JOIN public.account_metadata AS m
  ON m.workspace_id = t.workspace_id AND m.account_id = t.account_id;

-- Row-level security: a row is visible and writable only when it belongs to the transaction's workspace
-- AND the transaction's user is a member of it (both checked by current_workspace_id()). The scalar
-- subquery runs once per statement, so the (workspace_id, ...) indexes serve the predicate.
-- The owner (the server's own role) keeps full access for internal maintenance; RLS is not a boundary
-- against a table's owner anyway (it could disable RLS), the boundary is the SQL role.
DO $rls$
DECLARE
  t text;
  owner_is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
  FOREACH t IN ARRAY ARRAY['ledger_entries', 'budget_lines', 'workspace_settings', 'account_metadata'] LOOP
    EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY workspace_member_rows ON public.%I AS PERMISSIVE FOR ALL TO expense_sql
         USING (workspace_id = (SELECT expense_internal.current_workspace_id()))
         WITH CHECK (workspace_id = (SELECT expense_internal.current_workspace_id()))', t);
    IF NOT owner_is_superuser THEN
      EXECUTE format('CREATE POLICY owner_maintenance ON public.%I FOR ALL TO %I USING (true) WITH CHECK (true)',
                     t, current_user);
    END IF;
  END LOOP;
END
$rls$;
