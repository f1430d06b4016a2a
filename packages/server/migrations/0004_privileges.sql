-- Privileges: the SQL role (expense_sql) holds exactly the grants of the SQL dialect, the FX role
-- (expense_fx) writes the two global rate tables, PUBLIC keeps nothing it does not need.

REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA expense_internal FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA expense_internal FROM PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA expense_internal FROM PUBLIC;

GRANT USAGE ON SCHEMA public TO expense_sql, expense_fx;

GRANT SELECT ON public.ledger_entries, public.budget_lines, public.workspace_settings, public.account_metadata,
  public.accounts, public.fx_rates_raw, public.fx_rates_daily TO expense_sql;
GRANT INSERT, UPDATE, DELETE ON public.ledger_entries, public.budget_lines, public.workspace_settings,
  public.account_metadata TO expense_sql;
GRANT EXECUTE ON FUNCTION expense_internal.current_workspace_id() TO expense_sql;

GRANT SELECT, INSERT, UPDATE, DELETE ON public.fx_rates_raw, public.fx_rates_daily TO expense_fx;

DO $privileges$
DECLARE
  owner_is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
  -- No temporary tables for roles that do not need them (a temp table could shadow a relation name).
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO %I, expense_fx', current_database(), current_user);

  -- set_config would let a statement rewrite its own security context (expense.* settings, even role).
  -- Only a superuser can change the ACL of a pg_catalog function; otherwise require that a DBA did it.
  IF owner_is_superuser THEN
    REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
  END IF;
  IF pg_catalog.has_function_privilege('expense_sql', 'pg_catalog.set_config(text, text, boolean)', 'EXECUTE')
     OR pg_catalog.has_function_privilege('expense_fx', 'pg_catalog.set_config(text, text, boolean)', 'EXECUTE') THEN
    RAISE EXCEPTION 'the restricted roles can still execute set_config'
      USING HINT = format('As a superuser, run once in this database: REVOKE EXECUTE ON FUNCTION '
        'pg_catalog.set_config(text, text, boolean) FROM PUBLIC; GRANT EXECUTE ON FUNCTION '
        'pg_catalog.set_config(text, text, boolean) TO %I;', current_user);
  END IF;
  IF NOT pg_catalog.has_function_privilege(current_user, 'pg_catalog.set_config(text, text, boolean)', 'EXECUTE') THEN
    RAISE EXCEPTION 'the server role % cannot execute set_config, which it needs to set the SQL context', current_user
      USING HINT = format('As a superuser: GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO %I;',
        current_user);
  END IF;
END
$privileges$;
