import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable } from '../../platform/storage/database.js';

/** Seconds a refused deletion or restore asks the caller to wait (Retry-After). */
export const BUSY_RETRY_SECONDS = 1;

/** How long a statement of a deletion or restore may wait for a row lock a user's write holds. */
const LOCK_TIMEOUT_MS = 500;

/**
 * Takes the workspace's row `FOR UPDATE NOWAIT` and bounds every later lock wait of the transaction (lock_timeout,
 * local to it), on the server's internal pool: a user's write holds `FOR KEY SHARE` on the workspace row (its
 * foreign keys) and row locks on its data, which this must never wait for (docs/security.md, "The server's own
 * connections never wait for a user's lock"). A held lock is refused as 429 rate_limited, variant workspace_busy,
 * Retry-After 1, and nothing was changed. The caller deletes or writes the workspace's rows after this.
 */
export async function lockWorkspaceRows(tx: Queryable, workspaceId: string): Promise<void> {
  try {
    await tx.query(`SELECT set_config('lock_timeout', '${LOCK_TIMEOUT_MS}ms', true)`);
    await tx.query('SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1 FOR UPDATE NOWAIT', [
      workspaceId,
    ]);
  } catch (error) {
    throw busyOr(error);
  }
}

/** lock_not_available (55P03: NOWAIT, lock_timeout) as the coded retryable refusal; anything else as it is. */
export function busyOr(error: unknown): unknown {
  if ((error as { code?: unknown }).code !== '55P03') return error;
  return new ApiError(
    'rate_limited',
    'A write to this workspace is in progress right now; nothing was changed.',
    {
      variant: 'workspace_busy',
      headers: { 'retry-after': String(BUSY_RETRY_SECONDS) },
      details: { policy: 'workspace-in-use', retryAfterSeconds: BUSY_RETRY_SECONDS },
    },
  );
}
