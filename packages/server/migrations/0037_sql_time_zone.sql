-- SQL runs in the workspace's time zone: begin_user_context (migration 0008) also sets the transaction's
-- TimeZone to workspace_settings.timezone (UTC when the row is gone), as SET LOCAL does, so that a DATE literal
-- compared with a timestamptz is local midnight, ts::date is the local day and timestamps come back with the local
-- offset. It travels in the same call, so it costs no round trip, and lasts for the transaction only, so it holds
-- behind a transaction-mode pooler too. The change history pins UTC in its own functions (SET TimeZone = 'UTC'),
-- so its row images compare as text whatever the workspace's zone.
--
-- No SET clause on purpose (see 0008): a function with one undoes the set_config(..., true) calls made inside it.
CREATE OR REPLACE FUNCTION expense_internal.begin_user_context(
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
  PERFORM pg_catalog.set_config('TimeZone', expense_internal.workspace_time_zone(), true);
  PERFORM pg_catalog.set_config('search_path', 'public, pg_temp', true);
  PERFORM pg_catalog.set_config('role', 'expense_sql', true);
  RETURN ws::text;
END
$fn$;

REVOKE EXECUTE ON FUNCTION expense_internal.begin_user_context(uuid, uuid, text, text) FROM PUBLIC;
