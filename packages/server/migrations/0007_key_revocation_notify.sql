-- Every server process caches verified keys for a few seconds. A key revoked (or deleted, also through a
-- cascade from its user) is announced on the channel expense_key_revoked with its connection id at COMMIT, so
-- the processes listening on PostgreSQL forget it at once instead of when their cache entry expires.
CREATE FUNCTION expense_internal.notify_key_revoked() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  PERFORM pg_catalog.pg_notify('expense_key_revoked', OLD.connection_id::text);
  RETURN NULL;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.notify_key_revoked() FROM PUBLIC;

CREATE TRIGGER api_keys_revoked
  AFTER UPDATE OF revoked_at ON expense_internal.api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION expense_internal.notify_key_revoked();

CREATE TRIGGER api_keys_deleted
  AFTER DELETE ON expense_internal.api_keys
  FOR EACH ROW
  EXECUTE FUNCTION expense_internal.notify_key_revoked();
