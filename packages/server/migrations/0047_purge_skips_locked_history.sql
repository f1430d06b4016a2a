-- The 90-day purge of the change history (purge_changes, migrations 0017 and 0020) runs on the server's internal
-- pool, whose connections sign-in, key checks and /me share. It locked the usage rows of the workspaces it purges
-- FOR UPDATE, and a recorded write of a user holds its workspace's usage row from its first write statement until
-- COMMIT (0020's statement trigger): a user's slow script made the purge wait for it, an internal connection held
-- up to lock_timeout, or, behind a transaction-mode pooler where a single statement has no lock_timeout, until the
-- user's deadline. Now the purge skips a workspace whose usage row is held (SKIP LOCKED) and purges the others; the
-- skipped one's old changes go in a later round. It never waits for a user's lock. Otherwise unchanged: the same
-- batch (the oldest p_batch changes past 90 days, now of the workspaces it could lock), the totals kept, the number
-- of changes deleted returned (fewer than p_batch ends the caller's round).
CREATE OR REPLACE FUNCTION expense_internal.purge_changes(p_batch integer) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  locked uuid[];
  ids uuid[];
  n integer;
BEGIN
  SELECT array_agg(h.workspace_id) INTO locked FROM (
    SELECT u.workspace_id FROM expense_internal.change_usage AS u
    WHERE u.workspace_id IN (
      SELECT c.workspace_id FROM expense_internal.changes AS c
      WHERE c.at < now() - interval '90 days' ORDER BY c.at LIMIT p_batch
    )
    ORDER BY u.workspace_id FOR UPDATE SKIP LOCKED
  ) AS h;
  IF locked IS NULL THEN
    RETURN 0;
  END IF;
  SELECT array_agg(c.change_id) INTO ids FROM (
    SELECT change_id FROM expense_internal.changes
    WHERE at < now() - interval '90 days' AND workspace_id = ANY (locked) ORDER BY at LIMIT p_batch
  ) AS c;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  DELETE FROM expense_internal.change_rows WHERE change_id = ANY (ids);
  WITH gone AS (
    DELETE FROM expense_internal.changes WHERE change_id = ANY (ids) RETURNING workspace_id, bytes
  ), per AS (
    SELECT workspace_id, sum(bytes) AS b, count(*) AS k FROM gone GROUP BY workspace_id
  ), upd AS (
    UPDATE expense_internal.change_usage AS u SET bytes = u.bytes - per.b, changes = u.changes - per.k
    FROM per WHERE u.workspace_id = per.workspace_id
    RETURNING per.k
  )
  SELECT coalesce(sum(k), 0) INTO n FROM upd;
  RETURN n;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.purge_changes(integer) FROM PUBLIC;
