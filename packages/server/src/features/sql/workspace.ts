import type { ActionBuilder } from '../../platform/http/actions.js';
import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable, UserContext } from '../../platform/storage/database.js';
import { WorkspaceNotResolvedError } from '../../platform/storage/errors.js';
import type { Principal } from '../auth/api-keys.js';
import { findMembership, isUuid, listWorkspaces } from '../workspaces/store.js';

/**
 * The one rule for the workspace a request runs in (SQL endpoints, /changes): X-Workspace-Id (membership checked;
 * unknown, malformed and foreign ids alike are 404 workspace_not_found), else the key's saved workspace, else the
 * user's only workspace (saved for the key), else 400 missing_workspace listing the choices.
 *
 * The rule applied in two steps, so that a SQL request needs no round trip of its own for it: `lookup` is its
 * common case (the header's workspace if the user is a member, else the key's saved one if the user still is a
 * member), which the context function evaluates in the transaction's first round trip, as the owner, before the
 * role switch (migrations 0006/0008). When it finds nothing, nothing ran; `resolve` then applies the whole rule
 * with owner queries and decides the answer.
 */
export class WorkspaceResolution {
  constructor(
    private readonly db: Queryable,
    private readonly actions: ActionBuilder,
    private readonly principal: Principal,
    private readonly header: string | string[] | undefined,
  ) {}

  /** The common case as a lookup for the context function; undefined for a malformed header. */
  get lookup(): UserContext['workspaceId'] | undefined {
    const { header } = this;
    if (header === undefined) return { savedBy: this.principal.connectionId };
    if (Array.isArray(header) || !isUuid(header.trim())) return undefined;
    return { requested: header.trim() };
  }

  /** The whole rule, with owner queries: the workspace id, or the ApiError that answers the request. */
  resolve(): Promise<string> {
    return resolveWorkspace(this.db, this.actions, this.principal, this.header);
  }

  /**
   * Runs `attempt` with the lookup; when the lookup finds nothing (WorkspaceNotResolvedError: nothing ran) or there
   * is none, applies the whole rule and runs it again with the workspace id (or throws the rule's answer).
   */
  async run<T>(attempt: (workspace: UserContext['workspaceId']) => Promise<T>): Promise<T> {
    const { lookup } = this;
    if (lookup !== undefined) {
      try {
        return await attempt(lookup);
      } catch (error) {
        if (!(error instanceof WorkspaceNotResolvedError)) throw error;
      }
    }
    return attempt(await this.resolve());
  }
}

/** The rule of WorkspaceResolution, with owner queries. */
export async function resolveWorkspace(
  db: Queryable,
  actions: ActionBuilder,
  principal: Principal,
  header: string | string[] | undefined,
): Promise<string> {
  if (header !== undefined) {
    const requested = Array.isArray(header) || !isUuid(header.trim()) ? '' : header.trim();
    return (await findMembership(db, principal.userId, requested)).workspaceId;
  }
  // One round trip in the common case: the saved workspace, if its user is (still) a member.
  const { rows } = await db.query<{ workspace_id: string | null }>(
    `SELECT m.workspace_id
     FROM expense_internal.api_keys k
     LEFT JOIN expense_internal.workspace_members m
       ON m.workspace_id = k.selected_workspace_id AND m.user_id = k.user_id
     WHERE k.connection_id = $1`,
    [principal.connectionId],
  );
  const saved = rows[0]?.workspace_id;
  if (saved) return saved;

  const workspaces = await listWorkspaces(db, principal.userId, principal.connectionId);
  const only = workspaces.length === 1 ? workspaces[0] : undefined;
  if (only) {
    await db.query(
      `UPDATE expense_internal.api_keys SET selected_workspace_id = $2
       WHERE connection_id = $1 AND selected_workspace_id IS DISTINCT FROM $2`,
      [principal.connectionId, only.workspaceId],
    );
    return only.workspaceId;
  }
  throw new ApiError(
    'missing_workspace',
    workspaces.length === 0
      ? 'You have no workspace yet: create one first.'
      : `You belong to ${workspaces.length} workspaces and none is selected for this key.`,
    {
      details: { workspaces },
      instructions:
        workspaces.length === 0
          ? ['Create a workspace with POST /workspaces {"name"}, then send the SQL again.']
          : [
              'Ask the user which workspace to use, select it with POST /workspaces/{workspaceId}/select, then send the SQL again.',
              'Or send the header X-Workspace-Id with one of these workspaceIds.',
            ],
      actions:
        workspaces.length === 0
          ? [actions.createWorkspace(), actions.selectWorkspace()]
          : [...workspaces.map((w) => actions.selectWorkspace(w.workspaceId)), actions.listWorkspaces()],
    },
  );
}
