import type { Member, MemberStatus, Role, Workspace, WorkspaceListItem } from '@expense/wire';
import { ApiError } from '../../platform/http/api-error.js';
import { iso } from '../../platform/http/time.js';
import type { Queryable } from '../../platform/storage/database.js';

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

/** The settings a new workspace starts with (workspace_settings); the table's defaults (USD, UTC) otherwise. */
export interface NewWorkspaceSettings {
  currency?: string | undefined;
  timeZone?: string | undefined;
}

/**
 * Refuses a new workspace beyond the workspaces a user may own (limit_reached), under a lock of the user's row so
 * that concurrent creations cannot both take the last place. In the caller's transaction, before createWorkspace.
 */
export async function refuseBeyondWorkspaceCap(tx: Queryable, userId: string, limit: number): Promise<void> {
  await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [userId]);
  const { rows } = await tx.query<{ owned: number }>(
    `SELECT count(*)::int AS owned FROM expense_internal.workspace_members WHERE user_id = $1 AND role = 'owner'`,
    [userId],
  );
  const current = rows[0]?.owned ?? 0;
  if (current >= limit) {
    throw new ApiError('limit_reached', `You own ${current} workspaces: at most ${limit}.`, {
      variant: 'workspaces',
      details: { limit, current },
    });
  }
}

/**
 * Refuses a name one of the user's workspaces already has, ignoring case (409 workspace_name_taken): `expense use
 * Home` must name one workspace. Under a lock of the user's row, so that two creations or renames cannot both take
 * it. In the caller's transaction, before the write; `except` is the workspace being renamed.
 */
export async function refuseTakenName(
  tx: Queryable,
  userId: string,
  name: string,
  except?: string,
): Promise<void> {
  await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [userId]);
  const { rows } = await tx.query<{ workspace_id: string; name: string }>(
    `SELECT w.workspace_id, w.name FROM expense_internal.workspace_members m
     JOIN expense_internal.workspaces w ON w.workspace_id = m.workspace_id
     WHERE m.user_id = $1 AND lower(w.name) = lower($2) AND w.workspace_id IS DISTINCT FROM $3::uuid
     LIMIT 1`,
    [userId, name, except ?? null],
  );
  const taken = rows[0];
  if (taken) {
    throw new ApiError(
      'workspace_name_taken',
      `You already have a workspace named "${taken.name}" (names are compared ignoring case).`,
      { details: { workspaceId: taken.workspace_id, name: taken.name } },
    );
  }
}

/** Creates the workspace, its owner membership and its workspace_settings row, in the caller's transaction. */
export async function createWorkspace(
  tx: Queryable,
  userId: string,
  name: string,
  settings: NewWorkspaceSettings = {},
): Promise<Workspace & { settings: { currency: string; timeZone: string } }> {
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
  const { rows: saved } = await tx.query<{ reporting_currency: string; timezone: string }>(
    `INSERT INTO public.workspace_settings (workspace_id, reporting_currency, timezone)
     VALUES ($1, coalesce($2, 'USD'), coalesce($3, 'UTC'))
     ON CONFLICT (workspace_id) DO UPDATE
       SET reporting_currency = EXCLUDED.reporting_currency, timezone = EXCLUDED.timezone
     RETURNING reporting_currency, timezone`,
    [workspace.workspace_id, settings.currency ?? null, settings.timeZone ?? null],
  );
  const row = saved[0]!;
  return {
    workspaceId: workspace.workspace_id,
    name: workspace.name,
    role: 'owner',
    settings: { currency: row.reporting_currency, timeZone: row.timezone },
  };
}

/** Renames a workspace; owners only (other members: 403 forbidden), in the caller's transaction. */
export async function renameWorkspace(
  tx: Queryable,
  userId: string,
  workspaceId: string,
  name: string,
): Promise<Workspace> {
  const workspace = await findMembership(tx, userId, workspaceId, true);
  if (workspace.role !== 'owner') throw new ApiError('forbidden');
  await refuseTakenName(tx, userId, name, workspaceId);
  await tx.query('UPDATE expense_internal.workspaces SET name = $2 WHERE workspace_id = $1', [
    workspaceId,
    name,
  ]);
  return { ...workspace, name };
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
  status: MemberStatus;
  added_at: Date;
}

const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  email: r.email,
  role: r.role,
  status: r.status,
  addedAt: iso(r.added_at),
});

/** Active members, then pending invitations (which grant nothing until accepted). */
export async function listMembers(db: Queryable, workspaceId: string): Promise<Member[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT user_id, email, role, status, added_at FROM (
       SELECT m.user_id, u.email, m.role, 'active' AS status, m.added_at, 0 AS rank
       FROM expense_internal.workspace_members m JOIN expense_internal.users u USING (user_id)
       WHERE m.workspace_id = $1
       UNION ALL
       SELECT i.user_id, u.email, i.role, 'invited', i.invited_at, 1
       FROM expense_internal.workspace_invitations i JOIN expense_internal.users u USING (user_id)
       WHERE i.workspace_id = $1
         AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_members m
                         WHERE m.workspace_id = i.workspace_id AND m.user_id = i.user_id)
     ) AS everyone
     ORDER BY rank, added_at, email`,
    [workspaceId],
  );
  return rows.map(toMember);
}

/**
 * The address (normalised) as an active member of the workspace, else as invited to it; undefined when neither,
 * i.e. when inviting it would be a new invitation. Reads only: no lock, no write.
 */
export async function findMemberByEmail(
  db: Queryable,
  workspaceId: string,
  email: string,
): Promise<Member | undefined> {
  const { rows } = await db.query<MemberRow>(
    `SELECT u.user_id, u.email, coalesce(m.role, i.role) AS role,
            CASE WHEN m.user_id IS NOT NULL THEN 'active' ELSE 'invited' END AS status,
            coalesce(m.added_at, i.invited_at) AS added_at
     FROM expense_internal.users u
     LEFT JOIN expense_internal.workspace_members m ON m.workspace_id = $1 AND m.user_id = u.user_id
     LEFT JOIN expense_internal.workspace_invitations i ON i.workspace_id = $1 AND i.user_id = u.user_id
     WHERE lower(u.email) = $2 AND (m.user_id IS NOT NULL OR i.user_id IS NOT NULL)`,
    [workspaceId, email],
  );
  return rows[0] ? toMember(rows[0]) : undefined;
}

/**
 * Invites a user (by id) to a workspace as a member: an invitation only, which grants nothing until the invitee
 * accepts it. An active member is returned as they are; `created` tells whether a new invitation was written.
 * A new invitation is admitted first (features/invitations/limits.ts), in the same transaction.
 */
export async function inviteMember(
  tx: Queryable,
  workspaceId: string,
  userId: string,
  invitedBy: string,
): Promise<{ member: Member; created: boolean }> {
  const active = await tx.query<MemberRow>(
    `SELECT m.user_id, u.email, m.role, 'active' AS status, m.added_at
     FROM expense_internal.workspace_members m JOIN expense_internal.users u USING (user_id)
     WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  if (active.rows[0]) return { member: toMember(active.rows[0]), created: false };
  const inserted = await tx.query(
    `INSERT INTO expense_internal.workspace_invitations (workspace_id, user_id, role, invited_by)
     VALUES ($1, $2, 'member', $3) ON CONFLICT (workspace_id, user_id) DO NOTHING`,
    [workspaceId, userId, invitedBy],
  );
  const { rows } = await tx.query<MemberRow>(
    `SELECT i.user_id, u.email, i.role, 'invited' AS status, i.invited_at AS added_at
     FROM expense_internal.workspace_invitations i JOIN expense_internal.users u USING (user_id)
     WHERE i.workspace_id = $1 AND i.user_id = $2`,
    [workspaceId, userId],
  );
  return { member: toMember(rows[0]!), created: inserted.rowCount > 0 };
}

/**
 * Removes a member or withdraws an invitation, in the caller's transaction; says which. The caller revokes
 * every key of a removed ACTIVE member in the same transaction (the seed's rule, agreed to by accepting; see
 * routes/members); withdrawing an invitation touches nothing else. The owners are locked first, so two concurrent removals cannot leave a workspace
 * without an owner.
 */
export async function removeMember(
  tx: Queryable,
  workspaceId: string,
  userId: string,
): Promise<'removed' | 'withdrawn'> {
  const owners = await tx.query<{ user_id: string }>(
    `SELECT user_id FROM expense_internal.workspace_members
     WHERE workspace_id = $1 AND role = 'owner' FOR UPDATE`,
    [workspaceId],
  );
  if (!isUuid(userId)) throw memberNotFound();
  const target = await tx.query<{ role: Role }>(
    'SELECT role FROM expense_internal.workspace_members WHERE workspace_id = $1 AND user_id = $2 FOR UPDATE',
    [workspaceId, userId],
  );
  const role = target.rows[0]?.role;
  if (!role) {
    const withdrawn = await tx.query(
      'DELETE FROM expense_internal.workspace_invitations WHERE workspace_id = $1 AND user_id = $2',
      [workspaceId, userId],
    );
    if (withdrawn.rowCount === 0) throw memberNotFound();
    // An address that was only ever invited leaves nothing behind (invitations cannot pile up user rows). The
    // lock first, so that the check below (a new statement) sees an invitation committed meanwhile.
    await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [userId]);
    await tx.query(
      `DELETE FROM expense_internal.users u WHERE u.user_id = $1
         AND NOT EXISTS (SELECT 1 FROM expense_internal.api_keys k WHERE k.user_id = u.user_id)
         AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_members m WHERE m.user_id = u.user_id)
         AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_invitations i
                         WHERE i.user_id = u.user_id OR i.invited_by = u.user_id)`,
      [userId],
    );
    return 'withdrawn';
  }
  if (role === 'owner' && owners.rows.length <= 1) {
    throw new ApiError('last_owner', 'The last owner of a workspace cannot be removed.');
  }
  await tx.query('DELETE FROM expense_internal.workspace_members WHERE workspace_id = $1 AND user_id = $2', [
    workspaceId,
    userId,
  ]);
  return 'removed';
}

function memberNotFound(): ApiError {
  return new ApiError('not_found', 'This user is neither a member of the workspace nor invited to it.');
}
