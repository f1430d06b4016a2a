-- The SQL role's functions, default-deny (a second layer under the guard): nobody but the roles named here
-- may execute a function of this database, and the SQL role (expense_sql) may execute exactly what the
-- dialect's aggregates, operators and casts and the relations' defaults, checks, policies, view and triggers
-- need. The owner (the role that owns schema expense_internal and runs the server) and the FX role keep
-- every built-in function.
--
-- The ACL of a built-in (pg_catalog) function can be changed only by a superuser. A server whose database
-- owner is not a superuser stops here with a hint: a superuser runs THIS FILE once in the application's
-- database (it is idempotent and names no role but the schema owner and the two restricted roles):
--   psql -v ON_ERROR_STOP=1 -d <database> -f node_modules/@expense/server/migrations/0012_sql_role_functions.sql
-- and the server's next start records the migration as applied. See docs/operations.md.
DO $functions$
DECLARE
  owner_role name := (SELECT pg_catalog.pg_get_userbyid(nspowner) FROM pg_catalog.pg_namespace
                      WHERE nspname = 'expense_internal');
  is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
  -- The dialect's types (packages/sql-guard/src/dialect/expense.ts) and the internal ones the guard's own
  -- bookkeeping compares and casts as the SQL role (oid, name, "char": its written-row count and type lookup).
  allowed_types oid[] := ARRAY['text', 'varchar', 'bpchar', 'numeric', 'int2', 'int4', 'int8', 'float4',
    'float8', 'bool', 'date', 'time', 'timestamp', 'timestamptz', 'interval', 'uuid', 'unknown',
    'oid', 'name', '"char"']::pg_catalog.regtype[]::oid[];
  fn regprocedure;
BEGIN
  IF is_superuser THEN
    REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog, information_schema FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog, information_schema TO %I, expense_fx',
                   owner_role);

    FOR fn IN
      -- Operators of the dialect over its types: comparison, arithmetic, || (also text || a non-array
      -- value), LIKE and ILIKE (IN, BETWEEN and IS DISTINCT FROM are made of these). Date and interval
      -- arithmetic is + and - over those types.
      SELECT o.oprcode::regprocedure FROM pg_catalog.pg_operator AS o
      WHERE o.oprname IN ('=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '%', '||',
                          '~~', '!~~', '~~*', '!~~*')
        AND (o.oprleft = 0 OR o.oprleft = ANY (allowed_types)
             OR (o.oprname = '||' AND o.oprleft = 'anynonarray'::pg_catalog.regtype))
        AND (o.oprright = ANY (allowed_types)
             OR (o.oprname = '||' AND o.oprright = 'anynonarray'::pg_catalog.regtype))
        AND o.oprcode <> 0
      UNION
      -- Casts among the dialect's types, typmod coercions such as numeric(12,2) included.
      SELECT c.castfunc::regprocedure FROM pg_catalog.pg_cast AS c
      WHERE c.castfunc <> 0 AND c.castsource = ANY (allowed_types) AND c.casttarget = ANY (allowed_types)
      UNION
      -- The input and output functions of those types: a cast without a cast function (text to timestamptz,
      -- as an import writes `v.ts::timestamptz` over a VALUES list) converts through them, and checks EXECUTE.
      SELECT f.f::regprocedure FROM pg_catalog.pg_type AS t
      CROSS JOIN LATERAL (VALUES (t.typinput), (t.typoutput), (t.typreceive), (t.typsend)) AS f(f)
      WHERE t.oid = ANY (allowed_types) AND f.f::oid <> 0
      UNION
      -- Hash and btree support functions over those types: the executor checks EXECUTE on the hash function
      -- of a hashed IN list (hash_numeric for `amount IN (1, 2, ...)`), and compares through btree support.
      SELECT ap.amproc::regprocedure FROM pg_catalog.pg_amproc AS ap
      JOIN pg_catalog.pg_opfamily AS f ON f.oid = ap.amprocfamily
      JOIN pg_catalog.pg_am AS am ON am.oid = f.opfmethod
      WHERE am.amname IN ('hash', 'btree')
        AND ap.amproclefttype = ANY (allowed_types) AND ap.amprocrighttype = ANY (allowed_types)
      UNION
      -- The five aggregates over the dialect's types (count(*) and count(x) included).
      SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
      WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'a'
        AND p.proname IN ('sum', 'count', 'min', 'max', 'avg')
        AND (p.proname = 'count' OR p.proargtypes::oid[] <@ allowed_types)
      UNION
      -- What the seven relations run as the caller: column defaults (gen_random_uuid, now, the workspace
      -- default), CHECK constraints, row-level security policies and the accounts view (security_invoker).
      -- Built-in functions are pinned, so pg_depend does not record them: read the stored expression trees.
      SELECT DISTINCT CASE WHEN m.ref[1] = 'opno'
                           THEN (SELECT o.oprcode FROM pg_catalog.pg_operator AS o WHERE o.oid = m.ref[2]::oid)
                           ELSE m.ref[2]::oid END::regprocedure
      FROM (
        SELECT a.adbin::text AS tree FROM pg_catalog.pg_attrdef AS a
          JOIN pg_catalog.pg_class AS r ON r.oid = a.adrelid WHERE r.relnamespace = 'public'::regnamespace
        UNION ALL
        SELECT k.conbin::text FROM pg_catalog.pg_constraint AS k
          JOIN pg_catalog.pg_class AS r ON r.oid = k.conrelid
          WHERE r.relnamespace = 'public'::regnamespace AND k.conbin IS NOT NULL
        UNION ALL
        SELECT concat_ws(' ', p.polqual::text, p.polwithcheck::text) FROM pg_catalog.pg_policy AS p
          JOIN pg_catalog.pg_class AS r ON r.oid = p.polrelid WHERE r.relnamespace = 'public'::regnamespace
        UNION ALL
        SELECT w.ev_action::text FROM pg_catalog.pg_rewrite AS w
          JOIN pg_catalog.pg_class AS r ON r.oid = w.ev_class WHERE r.relnamespace = 'public'::regnamespace
      ) AS t
      CROSS JOIN LATERAL regexp_matches(t.tree, ':(funcid|opfuncid|aggfnoid|opno) ([0-9]+)', 'g') AS m(ref)
      WHERE m.ref[2] <> '0'
      UNION
      -- By name, what no catalog dependency records: the PL/pgSQL bodies of the triggers (migration 0002:
      -- now(), the time zone lookup, the error text), LIKE ... ESCAPE, and what the guard's own wrapper around
      -- each statement runs as the SQL role: its count of written rows and its measure of returned bytes
      -- (octet_length). Not current_setting: the server checks the session settings as the owner (in the
      -- context SELECT), and the guard's byte measure fails a statement by a cast, not by a setting.
      SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
      WHERE p.pronamespace = 'pg_catalog'::regnamespace
        AND p.proname IN ('now', 'pg_timezone_names', 'format', 'like_escape',
                          'pg_stat_get_xact_tuples_inserted', 'pg_stat_get_xact_tuples_updated',
                          'pg_stat_get_xact_tuples_deleted', 'octet_length')
    LOOP
      EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO expense_sql', fn);
    END LOOP;
  END IF;

  -- The application's own functions: the owner created them, so it can always do this part.
  IF is_superuser OR current_user = owner_role THEN
    REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public, expense_internal FROM PUBLIC;
  END IF;

  -- Whoever ran this, the result must hold; else say what a superuser must run.
  IF pg_catalog.has_function_privilege('expense_sql', 'pg_catalog.json_agg(anyelement)', 'EXECUTE')
     OR pg_catalog.has_function_privilege('expense_sql', 'pg_catalog.pg_sleep(double precision)', 'EXECUTE')
     OR pg_catalog.has_function_privilege('expense_sql', 'pg_catalog.pg_read_file(text)', 'EXECUTE')
     OR NOT pg_catalog.has_function_privilege('expense_sql', 'pg_catalog.sum(numeric)', 'EXECUTE') THEN
    RAISE EXCEPTION 'the SQL role expense_sql can still execute built-in functions the dialect does not need, '
      'and only a superuser can change that: as a superuser, run the file migrations/0012_sql_role_functions.sql '
      'of @expense/server once in database % (psql -v ON_ERROR_STOP=1 -d % -f .../0012_sql_role_functions.sql), '
      'then start the server again', current_database(), current_database()
      USING HINT = 'The file revokes EXECUTE on the functions of pg_catalog and information_schema from PUBLIC, '
        'grants them to the owner of schema expense_internal and to expense_fx, and grants expense_sql the '
        'functions of the SQL dialect; docs/operations.md explains it.';
  END IF;
  IF NOT pg_catalog.has_function_privilege(owner_role, 'pg_catalog.pg_advisory_xact_lock(bigint)', 'EXECUTE')
     OR NOT pg_catalog.has_function_privilege('expense_fx', 'pg_catalog.generate_series(integer, integer)', 'EXECUTE') THEN
    RAISE EXCEPTION 'the server role % or expense_fx lost EXECUTE on built-in functions', owner_role
      USING HINT = format('As a superuser: GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog, '
        'information_schema TO %I, expense_fx;', owner_role);
  END IF;
END
$functions$;

-- Functions the owner creates from now on are not executable by PUBLIC either (0001 did it per schema).
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
