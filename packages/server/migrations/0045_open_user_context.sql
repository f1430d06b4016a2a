-- The context of a user-SQL transaction and its time zone from one call (issue 28, "the lean path"). The context
-- SELECT used to call begin_user_context (migration 0037), which reads the workspace's zone to set TimeZone, and
-- then workspace_time_zone() (migration 0016) for the answer's clock: a second SECURITY DEFINER call that looked
-- the same settings row up again, about 40 % of the context's cost on the database. open_user_context does what
-- begin_user_context does, in the same order (workspace lookup as the owner, raising p_not_found before anything
-- else; user and workspace settings; TimeZone; search_path; the role switch last) and returns the workspace and
-- the zone it set as one text, `<workspace uuid> <zone>`: a uuid is 36 characters and an IANA zone name has no
-- space. begin_user_context stays for its other callers (a revert's context, servers of the previous release).
--
-- No SET clause on purpose (see 0008): a function with one undoes the set_config(..., true) calls made inside it.
-- Every name and operator is qualified instead: it runs with the caller's search_path.
CREATE FUNCTION expense_internal.open_user_context(
  p_user_id uuid, p_workspace_id uuid, p_kind text, p_not_found text
) RETURNS text
LANGUAGE plpgsql VOLATILE
AS $fn$
DECLARE
  ws uuid;
  zone text;
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
  -- As the owner (the role switch comes last), like workspace_time_zone(); UTC when the settings row is gone.
  zone := coalesce(
    (SELECT s.timezone FROM public.workspace_settings AS s WHERE s.workspace_id OPERATOR(pg_catalog.=) ws),
    'UTC');
  PERFORM pg_catalog.set_config('expense.user_id', p_user_id::text, true);
  PERFORM pg_catalog.set_config('expense.workspace_id', ws::text, true);
  PERFORM pg_catalog.set_config('TimeZone', zone, true);
  PERFORM pg_catalog.set_config('search_path', 'public, pg_temp', true);
  PERFORM pg_catalog.set_config('role', 'expense_sql', true);
  RETURN ws::text OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) zone;
END
$fn$;

REVOKE EXECUTE ON FUNCTION expense_internal.open_user_context(uuid, uuid, text, text) FROM PUBLIC;
