-- Confirmation tokens (docs/api.md, "Confirmed writes"): a dry run of a write answers a confirmToken, an HMAC
-- over the key, the workspace, the SHA-256 of the exact SQL and an expiry, signed with a secret kept here so that
-- every server instance and process sharing the database issues and accepts the same tokens. Tokens name the
-- secret that signed them (secret_id); the newest secret signs, any kept secret verifies.
-- Rotate with `SELECT expense_internal.rotate_confirmation_secret()`: a new secret signs from then on, the previous
-- one keeps verifying the tokens already issued (they live 10 minutes), older ones are dropped.
CREATE TABLE expense_internal.confirmation_secrets (
  secret_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  secret     bytea NOT NULL CHECK (octet_length(secret) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- 32 bytes from two gen_random_uuid() (pg_strong_random; 244 random bits): no extension needed, PGlite included.
CREATE FUNCTION expense_internal.rotate_confirmation_secret() RETURNS bigint
LANGUAGE sql AS $$
  WITH added AS (
    INSERT INTO expense_internal.confirmation_secrets (secret)
    VALUES (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'))
    RETURNING secret_id
  ), dropped AS (
    DELETE FROM expense_internal.confirmation_secrets
    WHERE secret_id < (SELECT max(secret_id) FROM expense_internal.confirmation_secrets)
  )
  SELECT secret_id FROM added
$$;

SELECT expense_internal.rotate_confirmation_secret();
