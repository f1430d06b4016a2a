-- Roles, the internal schema and the tables only the server (owner role) can reach.
-- Roles are cluster-wide on PostgreSQL: create them idempotently and tolerate a concurrent creator.

DO $roles$
DECLARE
  role_name text;
BEGIN
  FOREACH role_name IN ARRAY ARRAY['expense_sql', 'expense_fx'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = role_name) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', role_name);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL; -- another database of this cluster created it at the same moment
      END;
    END IF;
    -- A pre-existing role must be as restricted as one we would create.
    IF EXISTS (
      SELECT 1 FROM pg_catalog.pg_roles
      WHERE rolname = role_name
        AND (rolcanlogin OR rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb OR rolreplication)
    ) THEN
      RAISE EXCEPTION 'role % exists with more than NOLOGIN rights; refusing to use it', role_name;
    END IF;
    -- A non-superuser owner (production) needs membership to SET ROLE; a superuser does not.
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)
       AND NOT pg_catalog.pg_has_role(current_user, role_name, 'MEMBER') THEN
      EXECUTE format('GRANT %I TO %I', role_name, current_user);
    END IF;
  END LOOP;
END
$roles$;

CREATE SCHEMA IF NOT EXISTS expense_internal;
REVOKE ALL ON SCHEMA expense_internal FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA expense_internal REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

CREATE FUNCTION expense_internal.touch_updated_at() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END
$fn$;

CREATE TABLE expense_internal.users (
  user_id    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email      text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 320 AND email = btrim(email)),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON expense_internal.users (lower(email));

CREATE TABLE expense_internal.workspaces (
  workspace_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100 AND btrim(name) <> ''),
  created_by   uuid REFERENCES expense_internal.users (user_id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE expense_internal.workspace_members (
  workspace_id uuid NOT NULL REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  user_id      uuid NOT NULL REFERENCES expense_internal.users (user_id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('owner', 'member')),
  added_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON expense_internal.workspace_members (user_id);

CREATE TABLE expense_internal.api_keys (
  connection_id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id               uuid NOT NULL REFERENCES expense_internal.users (user_id) ON DELETE CASCADE,
  label                 text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 200),
  key_hash              text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  prefix                text NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  last_used_at          timestamptz,
  revoked_at            timestamptz,
  selected_workspace_id uuid REFERENCES expense_internal.workspaces (workspace_id) ON DELETE SET NULL
);
CREATE INDEX api_keys_user_idx ON expense_internal.api_keys (user_id);

CREATE TABLE expense_internal.otp_challenges (
  challenge_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash   text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  email        text NOT NULL,
  code_hash    text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  attempts     integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  consumed_at  timestamptz,
  voided_at    timestamptz
);
CREATE INDEX otp_challenges_email_idx ON expense_internal.otp_challenges (lower(email), created_at);

CREATE TABLE expense_internal.idempotency_records (
  connection_id   uuid NOT NULL REFERENCES expense_internal.api_keys (connection_id) ON DELETE CASCADE,
  idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
  request_hash    text NOT NULL,
  workspace_id    uuid REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'completed')),
  status_code     integer,
  response        jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  PRIMARY KEY (connection_id, idempotency_key)
);
CREATE INDEX idempotency_records_expiry_idx ON expense_internal.idempotency_records (expires_at);

-- The one function row-level security calls: the transaction's workspace when its user is a member, else
-- NULL. SECURITY DEFINER so the SQL role needs no access to the membership table; search_path pinned.
CREATE FUNCTION expense_internal.current_workspace_id() RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
  SELECT m.workspace_id
  FROM expense_internal.workspace_members AS m
  WHERE m.workspace_id = nullif(current_setting('expense.workspace_id', true), '')::uuid
    AND m.user_id = nullif(current_setting('expense.user_id', true), '')::uuid
$fn$;
