-- Temporary files (sorts and hashes spilling to disk) of one session are bounded: a single user statement
-- can otherwise fill the disk before its deadline. temp_file_limit can only be set by a superuser (or a role
-- granted SET on it): set it for this database when the migrating role may, else say what to run.
-- The embedded database also starts with the same value (storage/pglite.ts, PGLITE_SETTINGS).
DO $temp_file_limit$
DECLARE
  may_set boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)
    OR pg_catalog.has_parameter_privilege(current_user, 'temp_file_limit', 'SET');
BEGIN
  IF may_set THEN
    EXECUTE format('ALTER DATABASE %I SET temp_file_limit = %L', current_database(), '256MB');
    -- This connection too (the others read the database's setting when they connect).
    PERFORM pg_catalog.set_config('temp_file_limit', '256MB', false);
  ELSE
    RAISE WARNING 'temp_file_limit is not set for database %: one SQL statement may write unbounded temporary files', current_database()
      USING HINT = format('As a superuser, run once: ALTER DATABASE %I SET temp_file_limit = %L;', current_database(), '256MB');
  END IF;
END
$temp_file_limit$;
