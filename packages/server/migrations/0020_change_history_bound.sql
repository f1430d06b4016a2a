-- A bound per workspace on the stored change history (migration 0017), in bytes and in changes. Each change
-- carries its size (the bytes of its SQL text, its statements and its rows' key and images as text); a running
-- total per workspace is kept in the same transaction as the write, and when a write takes the workspace past
-- either bound, the workspace's oldest changes are dropped (header and rows) in that same transaction until it
-- is within both again. Writes are never refused for the history's sake. What was dropped is remembered per
-- workspace (how many, and the time of the newest dropped change), so that GET and revert of a dropped change
-- can say so; change ids are now time-ordered (UUID version 7), so a dropped change is recognised by its id.
--
-- The workspace's usage row is locked by its first recorded write statement until COMMIT, BEFORE that statement
-- writes a row (a statement-level BEFORE trigger): recorded writes of one workspace commit one after the other
-- (those of different workspaces do not wait for each other), and a transaction waiting for the row holds no row
-- lock of its own, so two scripts writing the same rows in opposite orders wait instead of deadlocking. A revert
-- takes the row before it locks the rows it checks; the purge of changes older than 90 days takes it before it
-- deletes.

CREATE TABLE expense_internal.change_history_limits (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  max_bytes   bigint  NOT NULL DEFAULT 67108864 CHECK (max_bytes > 0),
  max_changes integer NOT NULL DEFAULT 100000 CHECK (max_changes > 0)
);
INSERT INTO expense_internal.change_history_limits DEFAULT VALUES;

CREATE TABLE expense_internal.change_usage (
  workspace_id    uuid PRIMARY KEY,
  bytes           bigint NOT NULL DEFAULT 0,
  changes         integer NOT NULL DEFAULT 0,
  dropped_changes bigint NOT NULL DEFAULT 0,
  dropped_through timestamptz
);

ALTER TABLE expense_internal.changes ADD COLUMN bytes bigint NOT NULL DEFAULT 0;

-- The size of what exists already, and the totals per workspace.
UPDATE expense_internal.changes AS c
SET bytes = pg_catalog.octet_length(c.sql_text) + pg_catalog.octet_length(c.statements::text)
  + coalesce((SELECT sum(pg_catalog.octet_length(r.row_key::text)
                         + coalesce(pg_catalog.octet_length(r.before_image::text), 0)
                         + coalesce(pg_catalog.octet_length(r.after_image::text), 0))
              FROM expense_internal.change_rows AS r WHERE r.change_id = c.change_id), 0);
INSERT INTO expense_internal.change_usage (workspace_id, bytes, changes)
SELECT workspace_id, sum(bytes), count(*) FROM expense_internal.changes GROUP BY workspace_id;

DO $rls$
DECLARE
  t text;
  owner_is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
  FOREACH t IN ARRAY ARRAY['change_history_limits', 'change_usage'] LOOP
    EXECUTE format('ALTER TABLE expense_internal.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE expense_internal.%I FORCE ROW LEVEL SECURITY', t);
    IF NOT owner_is_superuser THEN
      EXECUTE format('CREATE POLICY owner_only ON expense_internal.%I FOR ALL TO %I USING (true) WITH CHECK (true)',
                     t, current_user);
    END IF;
  END LOOP;
END
$rls$;
REVOKE ALL ON expense_internal.change_history_limits, expense_internal.change_usage FROM PUBLIC;

-- A UUID of version 7: 48 bits of Unix milliseconds, then random bits.
CREATE FUNCTION expense_internal.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
           PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
           FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.uuid_v7() FROM PUBLIC;

-- The time a version-7 id was made, or NULL for another version.
CREATE FUNCTION expense_internal.uuid_v7_time(p_id uuid) RETURNS timestamptz
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT CASE WHEN substring(p_id::text FROM 15 FOR 1) = '7'
    THEN to_timestamp(('x' || lpad(replace(substring(p_id::text FROM 1 FOR 13), '-', ''), 16, '0'))::bit(64)::bigint
                      / 1000.0)
  END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.uuid_v7_time(uuid) FROM PUBLIC;

CREATE OR REPLACE FUNCTION expense_internal.begin_change(
  p_endpoint text, p_connection_id uuid, p_sql text, p_reverts uuid DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
AS $fn$
DECLARE
  id uuid := expense_internal.uuid_v7();
BEGIN
  PERFORM pg_catalog.set_config('expense.change_id', id::text, true);
  PERFORM pg_catalog.set_config('expense.change_endpoint', p_endpoint, true);
  PERFORM pg_catalog.set_config('expense.change_connection', coalesce(p_connection_id::text, ''), true);
  PERFORM pg_catalog.set_config('expense.change_sql', p_sql, true);
  PERFORM pg_catalog.set_config('expense.change_reverts', coalesce(p_reverts::text, ''), true);
  RETURN id;
END
$fn$;

-- Drops the workspace's oldest changes (never p_keep, the change being written) until its history is within
-- both bounds; the caller holds the workspace's usage row. Reads only as many changes as it drops.
CREATE FUNCTION expense_internal.trim_changes(p_workspace uuid, p_keep uuid) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  lim record;
  v_use record;
  r record;
  ids uuid[] := '{}';
  freed bigint := 0;
  newest timestamptz;
BEGIN
  SELECT * INTO lim FROM expense_internal.change_history_limits;
  SELECT * INTO v_use FROM expense_internal.change_usage WHERE workspace_id = p_workspace;
  IF NOT FOUND OR (v_use.bytes <= lim.max_bytes AND v_use.changes <= lim.max_changes) THEN
    RETURN 0;
  END IF;
  FOR r IN SELECT c.change_id, c.at, c.bytes FROM expense_internal.changes AS c
           WHERE c.workspace_id = p_workspace AND c.change_id <> p_keep ORDER BY c.seq LOOP
    EXIT WHEN v_use.bytes - freed <= lim.max_bytes AND v_use.changes - cardinality(ids) <= lim.max_changes;
    ids := ids || r.change_id;
    freed := freed + r.bytes;
    newest := greatest(newest, r.at);
  END LOOP;
  IF cardinality(ids) = 0 THEN
    RETURN 0;
  END IF;
  DELETE FROM expense_internal.change_rows WHERE change_id = ANY (ids);
  DELETE FROM expense_internal.changes WHERE change_id = ANY (ids);
  UPDATE expense_internal.change_usage AS u
  SET bytes = u.bytes - freed, changes = u.changes - cardinality(ids),
      dropped_changes = u.dropped_changes + cardinality(ids),
      dropped_through = greatest(u.dropped_through, newest)
  WHERE u.workspace_id = p_workspace;
  RETURN cardinality(ids);
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.trim_changes(uuid, uuid) FROM PUBLIC;

-- Locks the workspace's usage row (creating it) when the transaction has a change open: called by the BEFORE
-- statement triggers below and by a revert before it locks the change's rows.
CREATE FUNCTION expense_internal.lock_change_usage(p_workspace uuid) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  INSERT INTO expense_internal.change_usage (workspace_id) VALUES (p_workspace) ON CONFLICT (workspace_id) DO NOTHING;
  PERFORM 1 FROM expense_internal.change_usage WHERE workspace_id = p_workspace FOR UPDATE;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.lock_change_usage(uuid) FROM PUBLIC;

CREATE FUNCTION expense_internal.lock_change_usage_trigger() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  v_workspace uuid := nullif(current_setting('expense.workspace_id', true), '')::uuid;
BEGIN
  IF nullif(current_setting('expense.change_id', true), '') IS NOT NULL AND v_workspace IS NOT NULL THEN
    PERFORM expense_internal.lock_change_usage(v_workspace);
  END IF;
  RETURN NULL;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.lock_change_usage_trigger() FROM PUBLIC;

DO $triggers$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['ledger_entries', 'budget_lines', 'workspace_settings', 'account_metadata'] LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON public.%I
      FOR EACH STATEMENT EXECUTE FUNCTION expense_internal.lock_change_usage_trigger()', t || '_history_lock', t);
  END LOOP;
END
$triggers$;

-- record_change of migration 0017, now also sizing each statement's rows, keeping the workspace's total and
-- trimming the oldest changes past the bounds.
CREATE OR REPLACE FUNCTION expense_internal.record_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
AS $fn$
DECLARE
  v_change uuid := nullif(current_setting('expense.change_id', true), '')::uuid;
  v_workspace uuid := nullif(current_setting('expense.workspace_id', true), '')::uuid;
  v_keys text[] := TG_ARGV;
  v_count bigint;
  v_written bigint;
  v_bytes bigint;
  v_statement jsonb;
  v_new_change integer := 0;
  v_total record;
  v_limits record;
BEGIN
  IF v_change IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    WITH ins AS (
      INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
      SELECT v_change, TG_TABLE_NAME, expense_internal.change_row_key(n.img, v_keys), NULL, n.img
      FROM (SELECT to_jsonb(r) AS img FROM new_rows AS r) AS n
      RETURNING octet_length(row_key::text) + coalesce(octet_length(after_image::text), 0) AS b
    ) SELECT count(*), coalesce(sum(b), 0) INTO v_written, v_bytes FROM ins;
    v_count := v_written;
  ELSIF TG_OP = 'DELETE' THEN
    WITH ins AS (
      INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
      SELECT v_change, TG_TABLE_NAME, expense_internal.change_row_key(o.img, v_keys), o.img, NULL
      FROM (SELECT to_jsonb(r) AS img FROM old_rows AS r) AS o
      RETURNING octet_length(row_key::text) + coalesce(octet_length(before_image::text), 0) AS b
    ) SELECT count(*), coalesce(sum(b), 0) INTO v_written, v_bytes FROM ins;
    v_count := v_written;
  ELSE
    -- An update that changed a primary key pairs nothing: it is recorded as the old row gone, the new one added.
    WITH ins AS (
      INSERT INTO expense_internal.change_rows (change_id, table_name, row_key, before_image, after_image)
      SELECT v_change, TG_TABLE_NAME, coalesce(o.k, n.k), o.img, n.img
      FROM (SELECT to_jsonb(r) AS img, expense_internal.change_row_key(to_jsonb(r), v_keys) AS k FROM old_rows AS r) AS o
      FULL JOIN (SELECT to_jsonb(r) AS img, expense_internal.change_row_key(to_jsonb(r), v_keys) AS k FROM new_rows AS r) AS n
        ON o.k = n.k
      RETURNING octet_length(row_key::text) + coalesce(octet_length(before_image::text), 0)
        + coalesce(octet_length(after_image::text), 0) AS b
    ) SELECT coalesce(sum(b), 0) INTO v_bytes FROM ins;
    SELECT count(*) INTO v_count FROM new_rows;
  END IF;
  v_statement := jsonb_build_array(jsonb_build_object('table', TG_TABLE_NAME, 'command', TG_OP, 'rowCount', v_count));
  v_bytes := v_bytes + octet_length(v_statement::text);
  UPDATE expense_internal.changes AS c
  SET statements = c.statements || v_statement, bytes = c.bytes + v_bytes
  WHERE c.change_id = v_change;
  IF NOT FOUND THEN
    v_new_change := 1;
    v_bytes := v_bytes + octet_length(current_setting('expense.change_sql', true));
    INSERT INTO expense_internal.changes
      (change_id, workspace_id, user_id, connection_id, endpoint, sql_text, reverts, statements, bytes)
    VALUES (
      v_change,
      v_workspace,
      nullif(current_setting('expense.user_id', true), '')::uuid,
      nullif(current_setting('expense.change_connection', true), '')::uuid,
      current_setting('expense.change_endpoint', true),
      current_setting('expense.change_sql', true),
      nullif(current_setting('expense.change_reverts', true), '')::uuid,
      v_statement,
      v_bytes
    );
  END IF;
  INSERT INTO expense_internal.change_usage AS u (workspace_id, bytes, changes)
  VALUES (v_workspace, v_bytes, v_new_change)
  ON CONFLICT (workspace_id) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes, changes = u.changes + EXCLUDED.changes
  RETURNING u.bytes, u.changes INTO v_total;
  SELECT * INTO v_limits FROM expense_internal.change_history_limits;
  IF v_total.bytes > v_limits.max_bytes OR v_total.changes > v_limits.max_changes THEN
    PERFORM expense_internal.trim_changes(v_workspace, v_change);
  END IF;
  RETURN NULL;
END
$fn$;

-- purge_changes of migration 0017, keeping the totals: the usage rows are locked first (in workspace order),
-- as a recording write does, and only what was really deleted is subtracted.
CREATE OR REPLACE FUNCTION expense_internal.purge_changes(p_batch integer) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
  ids uuid[];
  n integer;
BEGIN
  SELECT array_agg(c.change_id) INTO ids FROM (
    SELECT change_id FROM expense_internal.changes WHERE at < now() - interval '90 days' ORDER BY at LIMIT p_batch
  ) AS c;
  IF ids IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM 1 FROM expense_internal.change_usage AS u
  WHERE u.workspace_id IN (SELECT c.workspace_id FROM expense_internal.changes AS c WHERE c.change_id = ANY (ids))
  ORDER BY u.workspace_id FOR UPDATE;
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
