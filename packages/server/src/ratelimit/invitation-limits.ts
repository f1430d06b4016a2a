import { consumeAll, type Limiter, type RateLimits } from '../auth/rate-limits.js';
import { ApiError } from '../http/api-error.js';
import type { Queryable } from '../storage/database.js';

/**
 * Bounds on invitations, so that an owner cannot fill the database with invited addresses nor flood an
 * address's invitation list: pending invitations per workspace and per invited address, and new invitations per
 * invited address, per workspace and per inviting user per hour (each new invitation is mailed). Every refusal is 429 rate_limited with Retry-After (the contract's
 * code for a limit on what a caller may do) and a hint naming what frees a place.
 */
export const INVITATION_LIMITS = {
  pendingPerWorkspace: 50,
  pendingPerAddress: 20,
  perAddress: { name: 'invitations-per-address', points: 5, durationSeconds: 3600 },
  perWorkspace: { name: 'invitations-per-workspace', points: 100, durationSeconds: 3600 },
  /** Each new invitation is mailed: one user may not mail more addresses an hour from all their workspaces. */
  perInviter: { name: 'invitations-per-inviter', points: 100, durationSeconds: 3600 },
} as const;

/** A count cap frees a place when someone acts; until then, ask again in an hour. */
const PENDING_RETRY_SECONDS = 3600;

export interface InvitationLimiters {
  perAddress: Limiter;
  perWorkspace: Limiter;
  perInviter: Limiter;
}

export function createInvitationLimits(limits: RateLimits): InvitationLimiters {
  return {
    perAddress: limits.create(INVITATION_LIMITS.perAddress),
    perWorkspace: limits.create(INVITATION_LIMITS.perWorkspace),
    perInviter: limits.create(INVITATION_LIMITS.perInviter),
  };
}

function pendingCap(policy: string, message: string, hint: string, limit: number, pending: number): ApiError {
  return new ApiError('rate_limited', message, {
    retryable: true,
    hint,
    headers: { 'retry-after': String(PENDING_RETRY_SECONDS) },
    details: { policy, limit, pending, retryAfterSeconds: PENDING_RETRY_SECONDS },
  });
}

/**
 * Checks the caps before a NEW invitation of `userId` (normalised address `email`) to `workspaceId`, in the
 * inviting transaction: locks the workspace and then the invitee (always in this order), so concurrent
 * invitations cannot both take the last place; then spends the hourly limits (a refusal rolls back).
 */
export async function admitInvitation(
  tx: Queryable,
  limiters: InvitationLimiters,
  invitation: { workspaceId: string; userId: string; email: string; invitedBy: string },
): Promise<void> {
  const { workspaceId, userId, email, invitedBy } = invitation;
  await tx.query('SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1 FOR UPDATE', [
    workspaceId,
  ]);
  await tx.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [userId]);
  const { rows } = await tx.query<{ workspace: number; address: number }>(
    `SELECT (SELECT count(*)::int FROM expense_internal.workspace_invitations WHERE workspace_id = $1) AS workspace,
            (SELECT count(*)::int FROM expense_internal.workspace_invitations WHERE user_id = $2) AS address`,
    [workspaceId, userId],
  );
  const pending = rows[0] ?? { workspace: 0, address: 0 };
  if (pending.workspace >= INVITATION_LIMITS.pendingPerWorkspace) {
    throw pendingCap(
      'pending-invitations-per-workspace',
      `This workspace already has ${pending.workspace} pending invitations: at most ${INVITATION_LIMITS.pendingPerWorkspace}.`,
      'Withdraw invitations nobody accepted (DELETE /workspaces/{workspaceId}/members/{userId}, see GET /workspaces/{workspaceId}/members) or wait until invitees accept or decline, then invite again.',
      INVITATION_LIMITS.pendingPerWorkspace,
      pending.workspace,
    );
  }
  if (pending.address >= INVITATION_LIMITS.pendingPerAddress) {
    throw pendingCap(
      'pending-invitations-per-address',
      `This address already has ${pending.address} pending invitations: at most ${INVITATION_LIMITS.pendingPerAddress}.`,
      'Ask the invitee to accept or decline the invitations waiting for them (GET /invitations), then invite again.',
      INVITATION_LIMITS.pendingPerAddress,
      pending.address,
    );
  }
  await consumeAll(
    [{ limiter: limiters.perAddress, key: email.toLowerCase() }],
    'new invitations of this address',
  );
  await consumeAll(
    [{ limiter: limiters.perWorkspace, key: workspaceId }],
    'new invitations from this workspace',
  );
  await consumeAll(
    [{ limiter: limiters.perInviter, key: invitedBy }],
    'new invitations you send (from all your workspaces)',
  );
}
