-- The context of a user-SQL transaction set by one function call, sent in the first round trip right after BEGIN.
-- It replaces the per-connection PREPARE of the context SELECT: a prepared statement is state of a server
-- session, which a transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy) does not keep with a client
-- connection. A PL/pgSQL function lives in the schema, so every session has it, and PL/pgSQL keeps its plans
-- per session, which was what the PREPARE saved.
--
-- p_kind: 'given' (p_workspace_id is the workspace), 'member' (p_workspace_id, if the user is a member of it),
-- 'saved' (p_workspace_id is a key's connection id: its saved workspace, if the user is still a member).
-- When no workspace is found it raises p_not_found (a text the caller recognises) before the role changes, so
-- the statements behind it in the batch do not run.
--
-- No SET clause on purpose: a function with one undoes the set_config(..., true) calls made inside it when it
-- returns. Every name is qualified instead. Called by the server's own role, before it becomes expense_sql.
CREATE FUNCTION expense_internal.begin_user_context(
  p_user_id uuid, p_workspace_id uuid, p_kind text, p_not_found text
) RETURNS text
LANGUAGE plpgsql VOLATILE
AS $fn$
DECLARE
  ws uuid;
BEGIN
  IF p_kind OPERATOR(pg_catalog.=) 'given' THEN
    ws := p_workspace_id;
  ELSIF p_kind OPERATOR(pg_catalog.=) 'member' THEN
    ws := expense_internal.member_workspace(p_workspace_id, p_user_id);
  ELSIF p_kind OPERATOR(pg_catalog.=) 'saved' THEN
    ws := expense_internal.saved_workspace(p_workspace_id, p_user_id);
  END IF;
  IF ws IS NULL THEN
    RAISE EXCEPTION USING MESSAGE = p_not_found, ERRCODE = 'no_data_found';
  END IF;
  PERFORM pg_catalog.set_config('expense.user_id', p_user_id::text, true);
  PERFORM pg_catalog.set_config('expense.workspace_id', ws::text, true);
  PERFORM pg_catalog.set_config('search_path', 'public, pg_temp', true);
  PERFORM pg_catalog.set_config('role', 'expense_sql', true);
  RETURN ws::text;
END
$fn$;

REVOKE EXECUTE ON FUNCTION expense_internal.begin_user_context(uuid, uuid, text, text) FROM PUBLIC;
