-- current_workspace_id() as PL/pgSQL: the same rule as 0001 (the transaction's workspace when its user is a
-- member, else NULL), but PL/pgSQL keeps its query plan for the session, where the SQL function was planned
-- again on every statement (measured: ~27 µs of ~410 µs per /sql/query on PostgreSQL).
-- CREATE OR REPLACE keeps the owner, SECURITY DEFINER and the EXECUTE grant to expense_sql.
CREATE OR REPLACE FUNCTION expense_internal.current_workspace_id() RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ws uuid := nullif(current_setting('expense.workspace_id', true), '')::uuid;
  usr uuid := nullif(current_setting('expense.user_id', true), '')::uuid;
BEGIN
  IF ws IS NULL OR usr IS NULL THEN
    RETURN NULL;
  END IF;
  RETURN (
    SELECT m.workspace_id
    FROM expense_internal.workspace_members AS m
    WHERE m.workspace_id = ws AND m.user_id = usr
  );
END
$fn$;
