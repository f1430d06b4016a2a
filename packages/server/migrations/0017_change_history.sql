-- Change history (issue 16): every committed write of user SQL (and every revert) is recorded in the same
-- transaction as the write, by statement-level AFTER triggers with transition tables on the four writable
-- relations. A trigger fires for every statement the dialect accepts that writes a relation: plain statements,
-- data-modifying CTEs (each CTE fires its own trigger), every statement of a script. Nothing is recorded unless
-- the server opened a change for the transaction (begin_change, called as the owner before the role switch):
-- the SQL role cannot call set_config, so it can neither open nor forge one.
--
-- The tables live in expense_internal: the SQL role has no USAGE on that schema, and the guard's written-row
-- count leaves that schema out, so recording does not count against a write's affected-row cap.

CREATE TABLE expense_internal.changes (
  change_id     uuid PRIMARY KEY,
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  workspace_id  uuid NOT NULL,
  user_id       uuid,
  connection_id uuid,
  endpoint      text NOT NULL,
  sql_text      text NOT NULL,
  reverts       uuid,
  statements    jsonb NOT NULL DEFAULT '[]',
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX changes_workspace_seq_idx ON expense_internal.changes (workspace_id, seq DESC);
CREATE INDEX changes_at_idx ON expense_internal.changes (at);
CREATE INDEX changes_reverts_idx ON expense_internal.changes (reverts) WHERE reverts IS NOT NULL;

-- One row image pair per row a trigger saw: before (NULL for an insert) and after (NULL for a delete), as
-- to_jsonb of the row (in UTC, so timestamps compare as text). row_key holds the primary key columns.
CREATE TABLE expense_internal.change_rows (
  change_id    uuid NOT NULL,
  seq          bigint GENERATED ALWAYS AS IDENTITY,
  table_name   text NOT NULL,
  row_key      jsonb NOT NULL,
  before_image jsonb,
  after_image  jsonb,
  PRIMARY KEY (change_id, seq)
);

-- Under row-level security like the user relations: no policy for any role but the owner.
DO $rls$
DECLARE
  t text;
  owner_is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
  FOREACH t IN ARRAY ARRAY['changes', 'change_rows'] LOOP
    EXECUTE format('ALTER TABLE expense_internal.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE expense_internal.%I FORCE ROW LEVEL SECURITY', t);
    IF NOT owner_is_superuser THEN
      EXECUTE format('CREATE POLICY owner_only ON expense_internal.%I FOR ALL TO %I USING (true) WITH CHECK (true)',
                     t, current_user);
    END IF;
  END LOOP;
END
$rls$;
REVOKE ALL ON expense_internal.changes, expense_internal.change_rows FROM PUBLIC;

-- Opens the change of this transaction: its id and what the triggers copy into its header. No SET clause (it
-- would undo the set_config calls on return) and not SECURITY DEFINER: called by the server's own role only,
-- before begin_user_context switches to the SQL role (it is evaluated first in the same select list).
CREATE FUNCTION expense_internal.begin_change(
  p_endpoint text, p_connection_id uuid, p_sql text, p_reverts uuid DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
AS $fn$
DECLARE
  id uuid := pg_catalog.gen_random_uuid();
BEGIN
  PERFORM pg_catalog.set_config('expense.change_id', id::text, true);
  PERFORM pg_catalog.set_config('expense.change_endpoint', p_endpoint, true);
  PERFORM pg_catalog.set_config('expense.change_connection', coalesce(p_connection_id::text, ''), true);
  PERFORM pg_catalog.set_config('expense.change_sql', p_sql, true);
  PERFORM pg_catalog.set_config('expense.change_reverts', coalesce(p_reverts::text, ''), true);
  RETURN id;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.begin_change(text, uuid, text, uuid) FROM PUBLIC;

-- The primary key columns (the trigger's arguments) of a row image.
CREATE FUNCTION expense_internal.change_row_key(p_image jsonb, p_keys text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT pg_catalog.jsonb_object_agg(k, p_image OPERATOR(pg_catalog.->) k) FROM pg_catalog.unnest(p_keys) AS k
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_row_key(jsonb, text[]) FROM PUBLIC;

-- The statement-level trigger: runs as the owner (SECURITY DEFINER), set-based over the transition tables.
CREATE FUNCTION expense_internal.record_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
AS $fn$
DECLARE
  v_change uuid := nullif(current_setting('expense.change_id', true), '')::uuid;
  v_keys text[] := TG_ARGV;
  v_count bigint;
BEGIN
  IF v_change IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
    SELECT v_change, TG_TABLE_NAME, expense_internal.change_row_key(n.img, v_keys), NULL, n.img
    FROM (SELECT to_jsonb(r) AS img FROM new_rows AS r) AS n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
    SELECT v_change, TG_TABLE_NAME, expense_internal.change_row_key(o.img, v_keys), o.img, NULL
    FROM (SELECT to_jsonb(r) AS img FROM old_rows AS r) AS o;
  ELSE
    -- An update that changed a primary key pairs nothing: it is recorded as the old row gone, the new one added.
    INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
    SELECT v_change, TG_TABLE_NAME, coalesce(o.k, n.k), o.img, n.img
    FROM (SELECT to_jsonb(r) AS img, expense_internal.change_row_key(to_jsonb(r), v_keys) AS k FROM old_rows AS r) AS o
    FULL JOIN (SELECT to_jsonb(r) AS img, expense_internal.change_row_key(to_jsonb(r), v_keys) AS k FROM new_rows AS r) AS n
      ON o.k = n.k;
    SELECT count(*) INTO v_count FROM new_rows;
  END IF;
  IF TG_OP <> 'UPDATE' THEN
    GET DIAGNOSTICS v_count = ROW_COUNT;
  END IF;
  INSERT INTO expense_internal.changes AS c
    (change_id, workspace_id, user_id, connection_id, endpoint, sql_text, reverts, statements)
  VALUES (
    v_change,
    nullif(current_setting('expense.workspace_id', true), '')::uuid,
    nullif(current_setting('expense.user_id', true), '')::uuid,
    nullif(current_setting('expense.change_connection', true), '')::uuid,
    current_setting('expense.change_endpoint', true),
    current_setting('expense.change_sql', true),
    nullif(current_setting('expense.change_reverts', true), '')::uuid,
    jsonb_build_array(jsonb_build_object('table', TG_TABLE_NAME, 'command', TG_OP, 'rowCount', v_count))
  )
  ON CONFLICT (change_id) DO UPDATE SET statements = c.statements || EXCLUDED.statements;
  RETURN NULL;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.record_change() FROM PUBLIC;

DO $triggers$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('ledger_entries', '''entry_id'''),
    ('budget_lines', '''line_id'''),
    ('workspace_settings', '''workspace_id'''),
    ('account_metadata', '''workspace_id'', ''account_id''')
  ) AS v(name, keys) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON public.%I REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION expense_internal.record_change(%s)', t.name || '_history_insert', t.name, t.keys);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON public.%I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION expense_internal.record_change(%s)', t.name || '_history_update', t.name, t.keys);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON public.%I REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION expense_internal.record_change(%s)', t.name || '_history_delete', t.name, t.keys);
  END LOOP;
END
$triggers$;

-- The net effect of a change per row (first before image, last after image, in the order written).
CREATE FUNCTION expense_internal.change_net_rows(p_change uuid)
RETURNS TABLE (table_name text, row_key jsonb, before_image jsonb, after_image jsonb)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT DISTINCT ON (r.table_name, r.row_key) r.table_name, r.row_key,
    (SELECT f.before_image FROM expense_internal.change_rows AS f
      WHERE f.change_id = p_change AND f.table_name = r.table_name AND f.row_key = r.row_key
      ORDER BY f.seq LIMIT 1),
    r.after_image
  FROM expense_internal.change_rows AS r
  WHERE r.change_id = p_change
  ORDER BY r.table_name, r.row_key, r.seq DESC
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_net_rows(uuid) FROM PUBLIC;

-- `col = 'value'::type AND ...` for a primary key of a user relation.
CREATE FUNCTION expense_internal.change_key_condition(p_table text, p_key jsonb) RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT string_agg(format('%I = %L::%s', a.attname, j.value, format_type(a.atttypid, a.atttypmod)), ' AND '
                    ORDER BY a.attnum)
  FROM jsonb_each_text(p_key) AS j
  JOIN pg_attribute AS a ON a.attrelid = format('public.%I', p_table)::regclass AND a.attname = j.key
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_key_condition(text, jsonb) FROM PUBLIC;

-- The rows of a change that are no longer as it left them (locked FOR UPDATE when present, so that nothing
-- changes them before the revert commits). Called as the owner, inside the revert's transaction.
CREATE FUNCTION expense_internal.change_conflicts(p_change uuid)
RETURNS TABLE (table_name text, row_key jsonb, expected jsonb, current jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
AS $fn$
DECLARE
  r record;
  cur jsonb;
BEGIN
  FOR r IN SELECT * FROM expense_internal.change_net_rows(p_change) AS n ORDER BY n.table_name, n.row_key::text LOOP
    EXECUTE format('SELECT to_jsonb(x) FROM public.%I AS x WHERE %s FOR UPDATE', r.table_name,
                   expense_internal.change_key_condition(r.table_name, r.row_key))
      INTO cur;
    IF cur::text IS DISTINCT FROM r.after_image::text THEN
      table_name := r.table_name;
      row_key := r.row_key;
      expected := r.after_image;
      current := cur;
      RETURN NEXT;
    END IF;
  END LOOP;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_conflicts(uuid) FROM PUBLIC;

-- The inverse of a change as plain statements by primary key, with every value a literal: first a DELETE of
-- every row the change left, then an INSERT of every row as it was before (an update is undone as delete and
-- insert, which restores updated_at as well). Run by the server as the SQL role, so row-level security applies.
CREATE FUNCTION expense_internal.change_inverse_sql(p_change uuid) RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
  WITH net AS (SELECT * FROM expense_internal.change_net_rows(p_change)),
  deletes AS (
    SELECT format('DELETE FROM public.%I WHERE %s', n.table_name,
                  expense_internal.change_key_condition(n.table_name, n.row_key)) AS stmt,
           1 AS phase, n.table_name, n.row_key::text AS k
    FROM net AS n WHERE n.after_image IS NOT NULL
  ),
  inserts AS (
    SELECT format('INSERT INTO public.%I (%s) VALUES (%s)', n.table_name,
             (SELECT string_agg(format('%I', a.attname), ', ' ORDER BY a.attnum)
              FROM pg_attribute AS a
              WHERE a.attrelid = format('public.%I', n.table_name)::regclass AND a.attnum > 0 AND NOT a.attisdropped
                AND n.before_image ? a.attname),
             (SELECT string_agg(coalesce(format('%L::%s', n.before_image ->> a.attname,
                                                format_type(a.atttypid, a.atttypmod)), 'NULL'),
                                ', ' ORDER BY a.attnum)
              FROM pg_attribute AS a
              WHERE a.attrelid = format('public.%I', n.table_name)::regclass AND a.attnum > 0 AND NOT a.attisdropped
                AND n.before_image ? a.attname)) AS stmt,
           2 AS phase, n.table_name, n.row_key::text AS k
    FROM net AS n WHERE n.before_image IS NOT NULL
  )
  SELECT coalesce(string_agg(s.stmt, E';\n' ORDER BY s.phase, s.table_name, s.k), '')
  FROM (SELECT * FROM deletes UNION ALL SELECT * FROM inserts) AS s
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_inverse_sql(uuid) FROM PUBLIC;

-- A row image for the API: numbers as decimal strings (as every owner query returns numeric), so that no
-- client parses them into binary floating point.
CREATE FUNCTION expense_internal.change_image_out(p_image jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT CASE WHEN p_image IS NULL THEN NULL ELSE coalesce(
    (SELECT jsonb_object_agg(e.key, CASE WHEN jsonb_typeof(e.value) = 'number' THEN to_jsonb(e.value #>> '{}')
                                        ELSE e.value END)
     FROM jsonb_each(p_image) AS e), '{}') END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.change_image_out(jsonb) FROM PUBLIC;

-- Kept 90 days: the server deletes older changes in bounded batches (one batch per call).
CREATE FUNCTION expense_internal.purge_changes(p_batch integer) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ids uuid[];
BEGIN
  SELECT array_agg(c.change_id) INTO ids FROM (
    SELECT change_id FROM expense_internal.changes WHERE at < now() - interval '90 days' ORDER BY at LIMIT p_batch
  ) AS c;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  DELETE FROM expense_internal.change_rows WHERE change_id = ANY (ids);
  DELETE FROM expense_internal.changes WHERE change_id = ANY (ids);
  RETURN cardinality(ids);
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.purge_changes(integer) FROM PUBLIC;

-- A revert restores a row by inserting its old image, updated_at included: the settings trigger now stamps
-- updated_at on UPDATE only, like the other relations' touch triggers (an INSERT takes the column's default).
-- SECURITY DEFINER: it runs during user SQL and reads pg_timezone_names, which the SQL role need not reach.
CREATE OR REPLACE FUNCTION expense_internal.check_workspace_settings() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  -- A CHECK cannot consult the time zone database; validate only when the name changes (the lookup is slow).
  IF NEW.timezone <> 'UTC' AND (TG_OP = 'INSERT' OR NEW.timezone IS DISTINCT FROM OLD.timezone)
     AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_names WHERE name = NEW.timezone) THEN
    RAISE EXCEPTION USING
      ERRCODE = 'check_violation',
      MESSAGE = format('"%s" is not an IANA time zone name', NEW.timezone),
      HINT = 'Use a name such as Europe/Berlin, America/New_York or UTC.',
      SCHEMA = 'public', TABLE = 'workspace_settings', COLUMN = 'timezone',
      CONSTRAINT = 'workspace_settings_timezone_check';
  END IF;
  IF TG_OP = 'UPDATE' THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.check_workspace_settings() FROM PUBLIC;
