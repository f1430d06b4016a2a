-- The server's own OAuth 2.1 authorization server for /mcp (docs/mcp.md, docs/security.md).
--   oauth_clients     registered clients (RFC 7591) and fetched client ID metadata documents (client_id = URL)
--   oauth_requests    authorization requests waiting for the user's consent (10 minutes)
--   oauth_grants      one consent: user, client, resource, access, workspace, lifetime; its access token is
--                     one ApiKey of kind 'oauth' (api_keys.oauth_grant_id), rotated in place on refresh
--   oauth_codes       authorization codes (hashed, single use, 5 minutes)
--   oauth_refresh_tokens  refresh tokens (hashed); a used one presented again revokes the whole grant
CREATE TABLE expense_internal.oauth_clients (
  client_id                  text PRIMARY KEY,
  client_secret_hash         text,
  token_endpoint_auth_method text NOT NULL DEFAULT 'none'
    CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  client_name                text NOT NULL,
  redirect_uris              jsonb NOT NULL,
  -- true: client_id is the URL of its metadata document, fetched_at says when it was read
  metadata_document          boolean NOT NULL DEFAULT false,
  fetched_at                 timestamptz,
  created_at                 timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE expense_internal.oauth_requests (
  request_id     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id      text NOT NULL REFERENCES expense_internal.oauth_clients (client_id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  state          text,
  resource       text NOT NULL,
  scope          text NOT NULL DEFAULT '',
  expires_at     timestamptz NOT NULL
);

CREATE TABLE expense_internal.oauth_grants (
  grant_id     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id    text NOT NULL REFERENCES expense_internal.oauth_clients (client_id) ON DELETE CASCADE,
  user_id      uuid NOT NULL REFERENCES expense_internal.users (user_id) ON DELETE CASCADE,
  resource     text NOT NULL,
  access       text NOT NULL CHECK (access IN ('read', 'read_write')),
  workspace_id uuid REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_grants_user ON expense_internal.oauth_grants (user_id);

CREATE TABLE expense_internal.oauth_codes (
  code_hash      text PRIMARY KEY,
  grant_id       uuid NOT NULL REFERENCES expense_internal.oauth_grants (grant_id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz
);

CREATE TABLE expense_internal.oauth_refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id   uuid NOT NULL REFERENCES expense_internal.oauth_grants (grant_id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_grant ON expense_internal.oauth_refresh_tokens (grant_id);

REVOKE ALL ON expense_internal.oauth_clients, expense_internal.oauth_requests, expense_internal.oauth_grants,
  expense_internal.oauth_codes, expense_internal.oauth_refresh_tokens FROM PUBLIC;

ALTER TABLE expense_internal.api_keys
  ADD COLUMN oauth_grant_id uuid UNIQUE REFERENCES expense_internal.oauth_grants (grant_id) ON DELETE CASCADE;

-- A refreshed access token replaces the key's hash in place (one row per grant in the key list): announce it
-- like a revocation so every process forgets the old token at once.
CREATE TRIGGER api_keys_rotated
  AFTER UPDATE OF key_hash ON expense_internal.api_keys
  FOR EACH ROW WHEN (OLD.key_hash IS DISTINCT FROM NEW.key_hash)
  EXECUTE FUNCTION expense_internal.notify_key_revoked();

-- Revoking an OAuth key (DELETE /v1/keys/{id}) ends its grant, so the client's refresh token stops too; ending a
-- grant (revocation endpoint, refresh-token reuse, code replay) revokes its key. Each side only touches rows
-- not yet revoked, so the two triggers stop after one round.
CREATE FUNCTION expense_internal.revoke_oauth_grant_of_key() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  UPDATE expense_internal.oauth_grants SET revoked_at = now()
   WHERE grant_id = NEW.oauth_grant_id AND revoked_at IS NULL;
  RETURN NULL;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.revoke_oauth_grant_of_key() FROM PUBLIC;

CREATE TRIGGER api_keys_revoke_oauth_grant
  AFTER UPDATE OF revoked_at ON expense_internal.api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.oauth_grant_id IS NOT NULL)
  EXECUTE FUNCTION expense_internal.revoke_oauth_grant_of_key();

CREATE FUNCTION expense_internal.revoke_key_of_oauth_grant() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  UPDATE expense_internal.api_keys SET revoked_at = now()
   WHERE oauth_grant_id = NEW.grant_id AND revoked_at IS NULL;
  RETURN NULL;
END
$fn$;
REVOKE EXECUTE ON FUNCTION expense_internal.revoke_key_of_oauth_grant() FROM PUBLIC;

CREATE TRIGGER oauth_grants_revoked
  AFTER UPDATE OF revoked_at ON expense_internal.oauth_grants
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION expense_internal.revoke_key_of_oauth_grant();
