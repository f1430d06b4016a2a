-- Categories matched ignoring case (issue 41): the bank's "Groceries" beside the household's "groceries" split one
-- category in two. A category written on an entry or a budget line (SQL, imports, the console: every path writes
-- through SQL) that equals one the workspace already knows, ignoring case, takes the known spelling. An UPDATE
-- that changes only the case of a row's category is a deliberate respelling: kept, and known from then on
-- (`expense categories rename` uses it). Reverts and restores write rows back byte for byte: not respelt, only
-- made known. Only rows of the transaction's own workspace are looked at (as check_external_id_free).
--
-- The known spellings live in expense_internal, one per (workspace, lower(category)): an index on lower(category)
-- of the user tables would make every insert by the SQL role call lower(), which that role may not execute
-- (migration 0012), and the trigger must not read a workspace's whole ledger per row.
CREATE TABLE expense_internal.workspace_categories (
  workspace_id uuid NOT NULL REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  folded       text NOT NULL,
  spelling     text NOT NULL,
  PRIMARY KEY (workspace_id, folded)
);

DO $rls$
DECLARE
  owner_is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
  ALTER TABLE expense_internal.workspace_categories ENABLE ROW LEVEL SECURITY;
  ALTER TABLE expense_internal.workspace_categories FORCE ROW LEVEL SECURITY;
  IF NOT owner_is_superuser THEN
    EXECUTE format('CREATE POLICY owner_only ON expense_internal.workspace_categories FOR ALL TO %I USING (true) WITH CHECK (true)',
                   current_user);
  END IF;
END
$rls$;
REVOKE ALL ON expense_internal.workspace_categories FROM PUBLIC;

-- What workspaces hold now: each category's most used spelling.
INSERT INTO expense_internal.workspace_categories (workspace_id, folded, spelling)
SELECT DISTINCT ON (workspace_id, lower(category)) workspace_id, lower(category), category
FROM (SELECT workspace_id, category FROM public.ledger_entries WHERE category IS NOT NULL
      UNION ALL SELECT workspace_id, category FROM public.budget_lines) AS c
GROUP BY workspace_id, category
ORDER BY workspace_id, lower(category), count(*) DESC, category;

CREATE FUNCTION expense_internal.known_category_spelling() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  v_spelling text;
BEGIN
  IF NEW.workspace_id IS DISTINCT FROM expense_internal.current_workspace_id() THEN
    RETURN NEW;
  END IF;
  IF coalesce(current_setting('expense.change_endpoint', true), '') IN ('revert', 'restore') THEN
    INSERT INTO expense_internal.workspace_categories (workspace_id, folded, spelling)
    VALUES (NEW.workspace_id, lower(NEW.category), NEW.category) ON CONFLICT DO NOTHING;
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND lower(NEW.category) = lower(OLD.category) THEN
    INSERT INTO expense_internal.workspace_categories (workspace_id, folded, spelling)
    VALUES (NEW.workspace_id, lower(NEW.category), NEW.category)
    ON CONFLICT (workspace_id, folded) DO UPDATE SET spelling = EXCLUDED.spelling;
    RETURN NEW;
  END IF;
  SELECT k.spelling INTO v_spelling FROM expense_internal.workspace_categories AS k
  WHERE k.workspace_id = NEW.workspace_id AND k.folded = lower(NEW.category);
  IF v_spelling IS NULL THEN
    INSERT INTO expense_internal.workspace_categories (workspace_id, folded, spelling)
    VALUES (NEW.workspace_id, lower(NEW.category), NEW.category) ON CONFLICT DO NOTHING;
  ELSE
    NEW.category := v_spelling;
  END IF;
  RETURN NEW;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.known_category_spelling() FROM PUBLIC;

CREATE TRIGGER ledger_entries_category_spelling BEFORE INSERT OR UPDATE OF category ON public.ledger_entries
  FOR EACH ROW WHEN (NEW.category IS NOT NULL)
  EXECUTE FUNCTION expense_internal.known_category_spelling();
CREATE TRIGGER budget_lines_category_spelling BEFORE INSERT OR UPDATE OF category ON public.budget_lines
  FOR EACH ROW WHEN (NEW.category IS NOT NULL)
  EXECUTE FUNCTION expense_internal.known_category_spelling();
