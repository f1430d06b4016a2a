-- Bounds the SQL guard can read (issue 28, "the lean path"). A read whose result has a size known before it runs
-- skips the guard's in-database byte measuring; the guard knows a column's size from its type or from the
-- relation's validated CHECK constraints (sql-guard run/check-bounds.ts). The ledger's text columns were bounded
-- by 0002 already; a currency's length was implied only by a regular expression (which the guard does not read)
-- and an amount not at all.
--
-- An amount (and a planned value) is below 10^15 in magnitude (so not NaN nor Infinity) and is written in at most
-- 32 characters: sign, 15 integer digits, the point and 15 decimals at most. The length is a cast to text because
-- the text is what every answer carries (a numeric's decimal text), and because it needs no function beyond what
-- the SQL role executes already (char_length and numeric's output function, migration 0012): no grant, so a
-- database whose owner is not a superuser migrates as before. A value outside answers check_violation (the
-- server's sql_execution_failed with sqlstate 23514 and the constraint's name).
--
-- The constraints are added NOT VALID and then validated one by one: a database holding rows that break one keeps
-- it NOT VALID (new rows are checked all the same; the guard ignores it and keeps measuring those columns) and
-- starts, with a warning naming it. VALIDATE CONSTRAINT once the rows are fixed makes it count.
ALTER TABLE public.ledger_entries
  ADD CONSTRAINT ledger_entries_currency_length CHECK (char_length(currency) = 3) NOT VALID,
  ADD CONSTRAINT ledger_entries_amount_bound
    CHECK (amount > -1e15 AND amount < 1e15 AND char_length(amount::text) <= 32) NOT VALID;

ALTER TABLE public.budget_lines
  ADD CONSTRAINT budget_lines_currency_length CHECK (char_length(currency) = 3) NOT VALID,
  ADD CONSTRAINT budget_lines_planned_value_bound
    CHECK (planned_value < 1e15 AND char_length(planned_value::text) <= 32) NOT VALID;

ALTER TABLE public.workspace_settings
  ADD CONSTRAINT workspace_settings_currency_length CHECK (char_length(reporting_currency) = 3) NOT VALID;

ALTER TABLE public.fx_rates_raw
  ADD CONSTRAINT fx_rates_raw_currency_length
    CHECK (char_length(base_currency) = 3 AND char_length(quote_currency) = 3) NOT VALID;

ALTER TABLE public.fx_rates_daily
  ADD CONSTRAINT fx_rates_daily_currency_length
    CHECK (char_length(base_currency) = 3 AND char_length(quote_currency) = 3) NOT VALID;

DO $validate$
DECLARE
  pair text[];
BEGIN
  FOREACH pair SLICE 1 IN ARRAY ARRAY[
    ['ledger_entries', 'ledger_entries_currency_length'],
    ['ledger_entries', 'ledger_entries_amount_bound'],
    ['budget_lines', 'budget_lines_currency_length'],
    ['budget_lines', 'budget_lines_planned_value_bound'],
    ['workspace_settings', 'workspace_settings_currency_length'],
    ['fx_rates_raw', 'fx_rates_raw_currency_length'],
    ['fx_rates_daily', 'fx_rates_daily_currency_length']
  ] LOOP
    BEGIN
      EXECUTE format('ALTER TABLE public.%I VALIDATE CONSTRAINT %I', pair[1], pair[2]);
    EXCEPTION WHEN check_violation THEN
      RAISE WARNING 'constraint % of %: existing rows break it, so it stays NOT VALID (new rows are checked)',
        pair[2], pair[1]
        USING HINT = format('Correct those rows, then: ALTER TABLE public.%I VALIDATE CONSTRAINT %I;', pair[1], pair[2]);
    END;
  END LOOP;
END
$validate$;
