-- Membership needs the invitee's consent. An owner's "add member" now writes an invitation here; only the
-- invitee accepting it writes a row into workspace_members. Invitations live in a table of their own so that
-- every reader of workspace_members (row-level security's current_workspace_id(), the SQL context lookups
-- member_workspace() and saved_workspace(), workspace resolution, /workspaces, select) keeps meaning ACTIVE
-- membership without a filter anyone could forget. Every membership that exists today is active: it stays.
CREATE TABLE expense_internal.workspace_invitations (
  workspace_id uuid NOT NULL REFERENCES expense_internal.workspaces (workspace_id) ON DELETE CASCADE,
  user_id      uuid NOT NULL REFERENCES expense_internal.users (user_id) ON DELETE CASCADE,
  role         text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  invited_by   uuid NOT NULL REFERENCES expense_internal.users (user_id) ON DELETE CASCADE,
  invited_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_invitations_user_idx ON expense_internal.workspace_invitations (user_id);
REVOKE ALL ON expense_internal.workspace_invitations FROM PUBLIC;
