import type { Member, Role, Workspace, WorkspaceListItem } from '@expense/wire';
import { ApiError } from '../../http/api-error.js';
import { iso } from '../../http/time.js';
import type { Queryable } from '../../storage/database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export async function listWorkspaces(
  db: Queryable,
  userId: string,
  connectionId: string,
): Promise<WorkspaceListItem[]> {
  const { rows } = await db.query<{ workspace_id: string; name: string; role: Role; selected: boolean }>(
    `SELECT w.workspace_id, w.name, m.role,
            coalesce(w.workspace_id = (SELECT selected_workspace_id FROM expense_internal.api_keys
                                      WHERE connection_id = $2), false) AS selected
     FROM expense_internal.workspace_members m
     JOIN expense_internal.workspaces w USING (workspace_id)
     WHERE m.user_id = $1
     ORDER BY w.created_at, w.workspace_id`,
    [userId, connectionId],
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, name: r.name, role: r.role, selected: r.selected }));
}

/** The caller's workspace; unknown, malformed and foreign ids are all workspace_not_found. */
export async function findMembership(
  db: Queryable,
  userId: string,
  workspaceId: string,
  lock = false,
): Promise<Workspace> {
  if (!isUuid(workspaceId)) throw notFound();
  const { rows } = await db.query<{ workspace_id: string; name: string; role: Role }>(
    `SELECT w.workspace_id, w.name, m.role
     FROM expense_internal.workspace_members m JOIN expense_internal.workspaces w USING (workspace_id)
     WHERE m.workspace_id = $1 AND m.user_id = $2${lock ? ' FOR UPDATE OF m' : ''}`,
    [workspaceId, userId],
  );
  const row = rows[0];
  if (!row) throw notFound();
  return { workspaceId: row.workspace_id, name: row.name, role: row.role };
}

function notFound(): ApiError {
  return new ApiError('workspace_not_found', 'No workspace with this id is available to you.');
}

/** Creates the workspace, its owner membership and its workspace_settings row, in the caller's transaction. */
export async function createWorkspace(tx: Queryable, userId: string, name: string): Promise<Workspace> {
  const { rows } = await tx.query<{ workspace_id: string; name: string }>(
    'INSERT INTO expense_internal.workspaces (name, created_by) VALUES ($1, $2) RETURNING workspace_id, name',
    [name, userId],
  );
  const workspace = rows[0]!;
  await tx.query(
    `INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')`,
    [workspace.workspace_id, userId],
  );
  // The settings table is under forced row-level security: set the context its policies check.
  await tx.query(
    `SELECT set_config('expense.user_id', $1, true), set_config('expense.workspace_id', $2, true)`,
    [userId, workspace.workspace_id],
  );
  await tx.query(
    'INSERT INTO public.workspace_settings (workspace_id) VALUES ($1) ON CONFLICT (workspace_id) DO NOTHING',
    [workspace.workspace_id],
  );
  return { workspaceId: workspace.workspace_id, name: workspace.name, role: 'owner' };
}

export async function selectWorkspace(
  db: Queryable,
  connectionId: string,
  workspaceId: string,
): Promise<void> {
  await db.query('UPDATE expense_internal.api_keys SET selected_workspace_id = $2 WHERE connection_id = $1', [
    connectionId,
    workspaceId,
  ]);
}

interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  added_at: Date;
}

const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  email: r.email,
  role: r.role,
  addedAt: iso(r.added_at),
});

export async function listMembers(db: Queryable, workspaceId: string): Promise<Member[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT m.user_id, u.email, m.role, m.added_at
     FROM expense_internal.workspace_members m JOIN expense_internal.users u USING (user_id)
     WHERE m.workspace_id = $1 ORDER BY m.added_at, u.email`,
    [workspaceId],
  );
  return rows.map(toMember);
}

/** Adds a user as a member; returns the member and whether it is new. */
export async function addMember(
  tx: Queryable,
  workspaceId: string,
  userId: string,
): Promise<{ member: Member; created: boolean }> {
  const inserted = await tx.query(
    `INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'member')
     ON CONFLICT (workspace_id, user_id) DO NOTHING`,
    [workspaceId, userId],
  );
  const { rows } = await tx.query<MemberRow>(
    `SELECT m.user_id, u.email, m.role, m.added_at
     FROM expense_internal.workspace_members m JOIN expense_internal.users u USING (user_id)
     WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  return { member: toMember(rows[0]!), created: inserted.rowCount > 0 };
}

/**
 * Removes a member and revokes every key of that user, in the caller's transaction. The owners are locked
 * first, so two concurrent removals cannot leave a workspace without an owner.
 */
export async function removeMember(tx: Queryable, workspaceId: string, userId: string): Promise<void> {
  const owners = await tx.query<{ user_id: string }>(
    `SELECT user_id FROM expense_internal.workspace_members
     WHERE workspace_id = $1 AND role = 'owner' FOR UPDATE`,
    [workspaceId],
  );
  const target = isUuid(userId)
    ? await tx.query<{ role: Role }>(
        'SELECT role FROM expense_internal.workspace_members WHERE workspace_id = $1 AND user_id = $2 FOR UPDATE',
        [workspaceId, userId],
      )
    : { rows: [] };
  const role = target.rows[0]?.role;
  if (!role) throw new ApiError('not_found', 'This user is not a member of the workspace.');
  if (role === 'owner' && owners.rows.length <= 1) {
    throw new ApiError('last_owner', 'The last owner of a workspace cannot be removed.');
  }
  await tx.query('DELETE FROM expense_internal.workspace_members WHERE workspace_id = $1 AND user_id = $2', [
    workspaceId,
    userId,
  ]);
  await tx.query(
    'UPDATE expense_internal.api_keys SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL',
    [userId],
  );
}
