-- Memory that one user statement may take on PostgreSQL (issue 35, defence in depth behind the guard's expansion
-- bounds): each sort or hash of a plan may use work_mem (hashes work_mem x hash_mem_multiplier) before it spills to
-- temporary files (bounded by temp_file_limit, 0013), and each parallel worker gets as much again. A server tuned
-- for reporting (work_mem of hundreds of MB, parallel workers) would hand those to every tenant's statements, so
-- this database pins them to PostgreSQL's defaults for untrusted SQL: 4MB, a multiplier of 1, no parallel workers
-- (one request, one backend: the in-flight limits count backends), and no JIT (compiling a plan is CPU no deadline
-- sees). The server's own statements are small and run the same. Set for the database when the migrating role owns
-- it (or is a superuser), else a warning says what to run; the embedded engine has no parallel workers or JIT and
-- starts with work_mem 4MB.
DO $user_sql_memory$
DECLARE
  may_set boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)
    OR (SELECT d.datdba = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)
        FROM pg_catalog.pg_database AS d WHERE d.datname = current_database());
  setting text[];
BEGIN
  FOREACH setting SLICE 1 IN ARRAY ARRAY[
    ['work_mem', '4MB'],
    ['hash_mem_multiplier', '1'],
    ['max_parallel_workers_per_gather', '0'],
    ['jit', 'off']
  ] LOOP
    IF may_set THEN
      EXECUTE format('ALTER DATABASE %I SET %s = %L', current_database(), setting[1], setting[2]);
      PERFORM pg_catalog.set_config(setting[1], setting[2], false);
    ELSE
      RAISE WARNING '% is not set for database %', setting[1], current_database()
        USING HINT = format('As the database owner, run once: ALTER DATABASE %I SET %s = %L;',
          current_database(), setting[1], setting[2]);
    END IF;
  END LOOP;
END
$user_sql_memory$;
