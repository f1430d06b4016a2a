-- Why a key ended, where the refusal of that key can help its holder (issue 39): a member removed from a workspace
-- loses every key at once, and signing in again gives a new key but never that workspace back. The refusal of such a
-- key (401 invalid_api_key) says so and names the workspace, so the agent asks an owner for a new invitation instead
-- of signing in again and again. Other revocations (the user's own, sign-out, OAuth) keep both columns NULL. The
-- workspace is not a foreign key: the reason outlives a workspace deleted since, whose name is then not shown.
ALTER TABLE expense_internal.api_keys
  ADD COLUMN revoked_reason text CHECK (revoked_reason IN ('removed_from_workspace')),
  ADD COLUMN revoked_workspace_id uuid;
