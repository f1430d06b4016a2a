import type { AppContext } from '../../context.js';
import { ApiError, type ApiErrorOptions } from '../../platform/http/api-error.js';
import { isWellFormedApiKey, sha256Hex } from './secrets.js';

interface EndedKeyRow {
  revoked_at: Date;
  revoked_workspace_id: string;
  workspace_name: string | null;
}

/**
 * The 401 for a key that did not verify. A key ended by its holder's removal from a workspace says so, and which
 * workspace (migration 0049): signing in again gives a new key but never that workspace back, so the generic
 * "sign in again" would send an agent round in circles. Unknown, malformed and otherwise revoked keys get the plain
 * refusal. Called only after verifyKey refused the key within its client's unknown-key budget, so the extra
 * lookup is bounded by that budget.
 */
export async function invalidKeyError(
  ctx: AppContext,
  key: string | undefined,
  message: string,
  options: Pick<ApiErrorOptions<'invalid_api_key'>, 'headers'> = {},
): Promise<ApiError<'invalid_api_key'>> {
  const ended = key !== undefined && isWellFormedApiKey(key) ? await endedByRemoval(ctx, key) : undefined;
  if (!ended) return new ApiError('invalid_api_key', message, options);
  const revokedAt = new Date(ended.revoked_at).toISOString();
  const where =
    ended.workspace_name === null ? 'a workspace since deleted' : `the workspace "${ended.workspace_name}"`;
  return new ApiError(
    'invalid_api_key',
    `This key was revoked at ${revokedAt} because an owner removed you from ${where}.`,
    {
      ...options,
      variant: 'removed_from_workspace',
      details: {
        reason: 'removed_from_workspace',
        workspaceId: ended.revoked_workspace_id,
        workspaceName: ended.workspace_name,
        revokedAt,
      },
    },
  );
}

async function endedByRemoval(ctx: AppContext, key: string): Promise<EndedKeyRow | undefined> {
  const { rows } = await ctx.db.query<EndedKeyRow>(
    `SELECT k.revoked_at, k.revoked_workspace_id, w.name AS workspace_name
       FROM expense_internal.api_keys k
       LEFT JOIN expense_internal.workspaces w ON w.workspace_id = k.revoked_workspace_id
      WHERE k.key_hash = $1 AND k.revoked_reason = 'removed_from_workspace'`,
    [sha256Hex(key)],
  );
  return rows[0];
}
