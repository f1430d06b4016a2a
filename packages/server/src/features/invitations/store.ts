import type { Invitation, Workspace } from '@expense/wire';
import { ApiError } from '../../platform/http/api-error.js';
import { iso } from '../../platform/http/time.js';
import type { Queryable } from '../../platform/storage/database.js';
import { isUuid } from '../workspaces/store.js';

/** The caller's pending invitations, oldest first. */
export async function listInvitations(db: Queryable, userId: string): Promise<Invitation[]> {
  const { rows } = await db.query<{
    workspace_id: string;
    name: string;
    inviter_email: string;
    invited_at: Date;
  }>(
    `SELECT i.workspace_id, w.name, u.email AS inviter_email, i.invited_at
     FROM expense_internal.workspace_invitations i
     JOIN expense_internal.workspaces w USING (workspace_id)
     JOIN expense_internal.users u ON u.user_id = i.invited_by
     WHERE i.user_id = $1
       AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_members m
                       WHERE m.workspace_id = i.workspace_id AND m.user_id = i.user_id)
     ORDER BY i.invited_at, i.workspace_id`,
    [userId],
  );
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    workspaceName: r.name,
    invitedBy: { email: r.inviter_email },
    invitedAt: iso(r.invited_at),
  }));
}

function invitationNotFound(): ApiError {
  return new ApiError('not_found', 'You have no pending invitation to this workspace.', {
    variant: 'invitation',
  });
}

/** Accepts the caller's invitation: the invitation becomes an active membership, in the caller's transaction. */
export async function acceptInvitation(
  tx: Queryable,
  userId: string,
  workspaceId: string,
): Promise<Workspace> {
  if (!isUuid(workspaceId)) throw invitationNotFound();
  const { rows } = await tx.query<{ role: Workspace['role'] }>(
    `DELETE FROM expense_internal.workspace_invitations WHERE workspace_id = $1 AND user_id = $2
     RETURNING role`,
    [workspaceId, userId],
  );
  const invited = rows[0];
  if (!invited) throw invitationNotFound();
  await tx.query(
    `INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, user_id) DO NOTHING`,
    [workspaceId, userId, invited.role],
  );
  const member = await tx.query<{ workspace_id: string; name: string; role: Workspace['role'] }>(
    `SELECT w.workspace_id, w.name, m.role
     FROM expense_internal.workspace_members m JOIN expense_internal.workspaces w USING (workspace_id)
     WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  const row = member.rows[0]!;
  return { workspaceId: row.workspace_id, name: row.name, role: row.role };
}

/** Declines the caller's invitation (deletes it). */
export async function declineInvitation(db: Queryable, userId: string, workspaceId: string): Promise<void> {
  if (!isUuid(workspaceId)) throw invitationNotFound();
  const { rowCount } = await db.query(
    'DELETE FROM expense_internal.workspace_invitations WHERE workspace_id = $1 AND user_id = $2',
    [workspaceId, userId],
  );
  if (rowCount === 0) throw invitationNotFound();
}

/** How many invitations wait for the caller (for the instructions of /me and /workspaces). */
export async function pendingInvitationCount(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM expense_internal.workspace_invitations i
     WHERE i.user_id = $1
       AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_members m
                       WHERE m.workspace_id = i.workspace_id AND m.user_id = i.user_id)`,
    [userId],
  );
  return rows[0]?.n ?? 0;
}
