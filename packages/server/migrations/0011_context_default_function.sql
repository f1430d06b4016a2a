-- The workspace_id defaults no longer call current_setting as the SQL role: migration 0012 takes EXECUTE on
-- current_setting (and every function the dialect does not need) away from it. The default reads the
-- transaction's workspace through this one function instead, which runs as its owner; it returns exactly what
-- the old expression did (the setting, or NULL when unset or empty).
CREATE FUNCTION expense_internal.context_workspace_id() RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  RETURN nullif(current_setting('expense.workspace_id', true), '')::uuid;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.context_workspace_id() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION expense_internal.context_workspace_id() TO expense_sql;

ALTER TABLE public.ledger_entries ALTER COLUMN workspace_id SET DEFAULT expense_internal.context_workspace_id();
ALTER TABLE public.budget_lines ALTER COLUMN workspace_id SET DEFAULT expense_internal.context_workspace_id();
ALTER TABLE public.workspace_settings ALTER COLUMN workspace_id SET DEFAULT expense_internal.context_workspace_id();
ALTER TABLE public.account_metadata ALTER COLUMN workspace_id SET DEFAULT expense_internal.context_workspace_id();
