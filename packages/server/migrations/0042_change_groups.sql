-- Change groups (issue 24): several writes that are one thing for the user (the batches of one `expense import`,
-- the reverts of those batches) are recorded as they always were, one change per request, each within the
-- affected-row cap, and each carries the group id and label its request sent (headers X-Change-Group and
-- X-Change-Label). The history lists a group as one entry; a group is reverted as a sequence of per-change
-- reverts. Additive: the triggers of migrations 0017 and 0020 are unchanged; a row trigger on the header
-- table copies the group from the transaction's settings, which only the server's own role can set (the SQL
-- role cannot call set_config), as begin_change does for the rest of the header.

ALTER TABLE expense_internal.changes ADD COLUMN group_id uuid, ADD COLUMN group_label text;
CREATE INDEX changes_workspace_group_idx ON expense_internal.changes (workspace_id, group_id, seq)
  WHERE group_id IS NOT NULL;

-- Sets the group of the change this transaction opens (called beside begin_change, as the owner, before the
-- role switch). No SET clause, for the same reason as begin_change.
CREATE FUNCTION expense_internal.set_change_group(p_group uuid, p_label text) RETURNS uuid
LANGUAGE plpgsql VOLATILE
AS $fn$
BEGIN
  PERFORM pg_catalog.set_config('expense.change_group', coalesce(p_group::text, ''), true);
  PERFORM pg_catalog.set_config('expense.change_group_label', coalesce(p_label, ''), true);
  RETURN p_group;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.set_change_group(uuid, text) FROM PUBLIC;

CREATE FUNCTION expense_internal.change_group_of() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  NEW.group_id := nullif(current_setting('expense.change_group', true), '')::uuid;
  NEW.group_label := CASE WHEN NEW.group_id IS NOT NULL
    THEN nullif(current_setting('expense.change_group_label', true), '') END;
  RETURN NEW;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_group_of() FROM PUBLIC;

CREATE TRIGGER changes_group BEFORE INSERT ON expense_internal.changes
  FOR EACH ROW EXECUTE FUNCTION expense_internal.change_group_of();
