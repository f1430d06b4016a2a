import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable } from '../../platform/storage/database.js';
import { busyOr, lockWorkspaceRows } from './locks.js';

/**
 * Deletes a workspace and everything of it, in the caller's owner transaction: its rows (the foreign keys
 * cascade from expense_internal.workspaces: data, settings, members, invitations, bound keys and grants,
 * idempotency records), and what refers to it without a foreign key: its change history (changes, change_rows,
 * change_usage, change groups) and the reason of keys revoked by a removal from it.
 */
export async function deleteWorkspaceIn(tx: Queryable, workspaceId: string): Promise<void> {
  await lockWorkspaceRows(tx, workspaceId);
  try {
    await tx.query(
      `DELETE FROM expense_internal.change_rows r USING expense_internal.changes c
       WHERE c.change_id = r.change_id AND c.workspace_id = $1`,
      [workspaceId],
    );
    await tx.query('DELETE FROM expense_internal.changes WHERE workspace_id = $1', [workspaceId]);
    await tx.query('DELETE FROM expense_internal.change_usage WHERE workspace_id = $1', [workspaceId]);
    await tx.query(
      'UPDATE expense_internal.api_keys SET revoked_workspace_id = NULL WHERE revoked_workspace_id = $1',
      [workspaceId],
    );
    await tx.query('DELETE FROM expense_internal.workspaces WHERE workspace_id = $1', [workspaceId]);
  } catch (error) {
    throw busyOr(error);
  }
}

/** The caller's workspace as its owner (workspace_not_found for others; forbidden for a member), locked. */
export async function ownedWorkspace(
  tx: Queryable,
  userId: string,
  workspaceId: string,
): Promise<{ workspaceId: string; name: string }> {
  const { rows } = await tx.query<{ workspace_id: string; name: string; role: string }>(
    `SELECT w.workspace_id, w.name, m.role
     FROM expense_internal.workspace_members m JOIN expense_internal.workspaces w USING (workspace_id)
     WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  const row = rows[0];
  if (!row) throw new ApiError('workspace_not_found', 'No workspace with this id is available to you.');
  if (row.role !== 'owner') {
    throw new ApiError('forbidden', 'Only an owner of this workspace can do this.', {
      details: { role: row.role },
    });
  }
  return { workspaceId: row.workspace_id, name: row.name };
}

/**
 * The workspaces the user owns with no other owner: an account deletion deletes them (a workspace with another
 * owner stays, without this user).
 */
export async function soleOwnedWorkspaces(tx: Queryable, userId: string): Promise<string[]> {
  const { rows } = await tx.query<{ workspace_id: string }>(
    `SELECT m.workspace_id FROM expense_internal.workspace_members m
     WHERE m.user_id = $1 AND m.role = 'owner'
       AND NOT EXISTS (SELECT 1 FROM expense_internal.workspace_members o
                       WHERE o.workspace_id = m.workspace_id AND o.role = 'owner' AND o.user_id <> $1)
     ORDER BY m.workspace_id`,
    [userId],
  );
  return rows.map((r) => r.workspace_id);
}

/**
 * Deletes what is left of the account once its keys are revoked and its sole-owned workspaces deleted: its
 * sign-in challenges (by address), the history's mention of it in workspaces that stay (the change stays, its
 * author becomes unknown), and the user row, whose foreign keys cascade to keys, memberships, invitations (to and
 * by it), OAuth grants, codes and refresh tokens, and set `workspaces.created_by` to NULL.
 */
export async function deleteUserIn(tx: Queryable, userId: string, email: string): Promise<void> {
  try {
    await tx.query(`SELECT set_config('lock_timeout', '500ms', true)`);
    await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE NOWAIT', [userId]);
    await tx.query('DELETE FROM expense_internal.otp_challenges WHERE lower(email) = lower($1)', [email]);
    await tx.query(
      'UPDATE expense_internal.changes SET user_id = NULL, connection_id = NULL WHERE user_id = $1',
      [userId],
    );
    await tx.query('DELETE FROM expense_internal.users WHERE user_id = $1', [userId]);
  } catch (error) {
    throw busyOr(error);
  }
}
