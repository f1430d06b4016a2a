-- The workspace lookups every SQL request makes in its first round trip, as PL/pgSQL so their plans are kept
-- for the session instead of planned again per request (measured: most of the ~50 µs the lookup cost).
-- Called by the server's own role before it switches to expense_sql; nobody else may execute them.
CREATE FUNCTION expense_internal.member_workspace(p_workspace_id uuid, p_user_id uuid) RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  RETURN (
    SELECT m.workspace_id FROM expense_internal.workspace_members AS m
    WHERE m.workspace_id = p_workspace_id AND m.user_id = p_user_id
  );
END
$fn$;

-- The key's saved workspace, if the key's user is (still) a member of it.
CREATE FUNCTION expense_internal.saved_workspace(p_connection_id uuid, p_user_id uuid) RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  RETURN (
    SELECT m.workspace_id FROM expense_internal.workspace_members AS m
    WHERE m.user_id = p_user_id
      AND m.workspace_id = (
        SELECT k.selected_workspace_id FROM expense_internal.api_keys AS k
        WHERE k.connection_id = p_connection_id AND k.user_id = p_user_id
      )
  );
END
$fn$;

REVOKE EXECUTE ON FUNCTION expense_internal.member_workspace(uuid, uuid) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION expense_internal.saved_workspace(uuid, uuid) FROM PUBLIC;
