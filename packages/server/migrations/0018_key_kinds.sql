-- Keys of several kinds share one table, so every kind is listed, rate limited and revoked the same way:
--   agent    a key from the e-mailed code flow (POST /api/agent/verify-code), the default
--   cli      a key the CLI obtained through `expense login`
--   oauth    an access token issued to an OAuth client (see docs/mcp.md), with a lifetime and a scope
--   console  a browser's console session (see docs/console.md), short-lived, held in an HttpOnly cookie
-- access and workspace_id narrow what a key may do: 'read' keys may only read; a key bound to a workspace
-- reaches that workspace only. A key past its expires_at is refused like a revoked one.
ALTER TABLE expense_internal.api_keys
  ADD COLUMN kind text NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'cli', 'oauth', 'console')),
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN access text NOT NULL DEFAULT 'read_write' CHECK (access IN ('read', 'read_write')),
  ADD COLUMN workspace_id uuid REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE;
