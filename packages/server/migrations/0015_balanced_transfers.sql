-- Transfers balance: the rows with kind 'transfer' that share an event_id sum to zero per currency, checked
-- when the transaction commits (a deferred constraint trigger), so both legs can be written by separate
-- statements of one request. A transfer needs an event_id (the legs are found by it); NOT VALID leaves rows
-- written before this migration alone until they are changed.
ALTER TABLE public.ledger_entries
  ADD CONSTRAINT ledger_entries_transfer_event_id CHECK (kind <> 'transfer' OR event_id IS NOT NULL) NOT VALID;

-- Runs as the owner (SECURITY DEFINER) whatever role wrote the row, with a fixed search_path; it only sums rows
-- of the workspace of the row that was written, which the writer could see.
CREATE FUNCTION expense_internal.check_transfer_balanced() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  leg record;
  total numeric;
BEGIN
  FOR leg IN
    SELECT OLD.workspace_id AS workspace_id, OLD.event_id AS event_id, OLD.currency AS currency
    WHERE TG_OP <> 'INSERT' AND OLD.kind = 'transfer'
    UNION ALL
    SELECT NEW.workspace_id, NEW.event_id, NEW.currency
    WHERE TG_OP <> 'DELETE' AND NEW.kind = 'transfer'
  LOOP
    CONTINUE WHEN leg.event_id IS NULL;
    SELECT sum(e.amount) INTO total FROM public.ledger_entries AS e
    WHERE e.workspace_id = leg.workspace_id AND e.event_id = leg.event_id
      AND e.currency = leg.currency AND e.kind = 'transfer';
    IF total <> 0 THEN
      RAISE EXCEPTION USING
        ERRCODE = 'check_violation',
        MESSAGE = format('transfer event %L does not balance in %s: its transfer rows sum to %s, not 0',
                         leg.event_id, leg.currency, total),
        DETAIL = json_build_object('event_id', leg.event_id, 'currency', leg.currency, 'sum', total::text)::text,
        SCHEMA = 'public', TABLE = 'ledger_entries',
        CONSTRAINT = 'ledger_entries_transfer_balanced';
    END IF;
  END LOOP;
  RETURN NULL;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.check_transfer_balanced() FROM PUBLIC;

CREATE CONSTRAINT TRIGGER ledger_entries_transfer_balanced_insert
  AFTER INSERT ON public.ledger_entries DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.kind = 'transfer')
  EXECUTE FUNCTION expense_internal.check_transfer_balanced();
CREATE CONSTRAINT TRIGGER ledger_entries_transfer_balanced_update
  AFTER UPDATE OF amount, currency, kind, event_id, workspace_id ON public.ledger_entries
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.kind = 'transfer' OR NEW.kind = 'transfer')
  EXECUTE FUNCTION expense_internal.check_transfer_balanced();
CREATE CONSTRAINT TRIGGER ledger_entries_transfer_balanced_delete
  AFTER DELETE ON public.ledger_entries DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.kind = 'transfer')
  EXECUTE FUNCTION expense_internal.check_transfer_balanced();
