-- What an agent needs to act on: the workspace's time zone in the SQL context, and a duplicate external_id
-- named (PostgreSQL withholds the key's value under row-level security).

-- The time zone of the transaction's workspace (UTC when its settings row is gone), read in the context SELECT
-- right after begin_user_context set the workspace and switched to the SQL role. The call is permitted when the
-- statement starts (as the server's own role); SECURITY DEFINER so the body, which runs after the switch, still
-- runs as the owner (the SQL role has no USAGE on expense_internal). Only the server can execute it.
CREATE FUNCTION expense_internal.workspace_time_zone() RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  RETURN coalesce((
    SELECT s.timezone FROM public.workspace_settings AS s
    WHERE s.workspace_id = expense_internal.current_workspace_id()
  ), 'UTC');
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.workspace_time_zone() FROM PUBLIC;

-- A second row with an external_id the workspace already holds, refused with the value named (the unique
-- index refuses it too, but without the value). Only for rows of the transaction's own workspace, so that
-- it never tells whether another workspace holds a value (a row naming another workspace is refused by
-- row-level security after this trigger). An earlier row of the same statement is found too.
CREATE FUNCTION expense_internal.check_external_id_free() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  IF NEW.workspace_id = expense_internal.current_workspace_id() AND EXISTS (
    SELECT 1 FROM public.ledger_entries AS e
    WHERE e.workspace_id = NEW.workspace_id AND e.external_id = NEW.external_id AND e.entry_id <> NEW.entry_id
  ) THEN
    RAISE EXCEPTION USING
      ERRCODE = 'unique_violation',
      MESSAGE = format('external_id %L already exists in this workspace', NEW.external_id),
      DETAIL = json_build_object('external_id', NEW.external_id)::text,
      SCHEMA = 'public', TABLE = 'ledger_entries', COLUMN = 'external_id',
      CONSTRAINT = 'ledger_entries_external_id_key';
  END IF;
  RETURN NEW;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.check_external_id_free() FROM PUBLIC;

CREATE TRIGGER ledger_entries_external_id_insert BEFORE INSERT ON public.ledger_entries
  FOR EACH ROW WHEN (NEW.external_id IS NOT NULL)
  EXECUTE FUNCTION expense_internal.check_external_id_free();
CREATE TRIGGER ledger_entries_external_id_update BEFORE UPDATE OF external_id ON public.ledger_entries
  FOR EACH ROW WHEN (NEW.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id)
  EXECUTE FUNCTION expense_internal.check_external_id_free();

-- The coverage of the held rates (first and newest ECB day) is read every minute and shown by /schema.
CREATE INDEX fx_rates_raw_rate_date_idx ON public.fx_rates_raw (rate_date);
