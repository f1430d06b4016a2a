import { clockAt } from '../../platform/clock/clock.js';
import type { Queryable } from '../../platform/storage/database.js';
import type { Principal } from '../auth/api-keys.js';
import { isUuid } from './store.js';

/**
 * The time zone of the workspace a request would use outside SQL (/schema, a guard refusal): X-Workspace-Id
 * when the user is a member of it, else the key's saved workspace; UTC without one. One owner query.
 */
export async function workspaceTimeZone(
  db: Queryable,
  principal: Principal,
  header: string | string[] | undefined,
): Promise<string> {
  const requested = typeof header === 'string' && isUuid(header.trim()) ? header.trim() : null;
  const { rows } = await db.query<{ timezone: string }>(
    `SELECT s.timezone
     FROM expense_internal.api_keys k
     JOIN expense_internal.workspace_members m
       ON m.user_id = k.user_id AND m.workspace_id = coalesce($2::uuid, k.selected_workspace_id)
     JOIN public.workspace_settings s ON s.workspace_id = m.workspace_id
     WHERE k.connection_id = $1`,
    [principal.connectionId, requested],
  );
  return rows[0]?.timezone ?? 'UTC';
}

/** The clock of that workspace now. */
export async function workspaceClock(
  db: Queryable,
  principal: Principal,
  header?: string | string[] | undefined,
) {
  return clockAt(new Date(), await workspaceTimeZone(db, principal, header));
}
