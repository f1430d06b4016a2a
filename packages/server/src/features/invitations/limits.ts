import { ApiError } from '../../platform/http/api-error.js';
import { consumeAll, type Limiter, type RateLimits } from '../../platform/ratelimit/limits.js';
import type { Queryable } from '../../platform/storage/database.js';
import { tryLockInvitationTargets } from './locks.js';

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
  /**
   * Each new invitation is mailed: one user may not mail more addresses an hour from all their workspaces. Every
   * refused attempt counts here too, so repeating refused invitations ends in this limit.
   */
  perInviter: { name: 'invitations-per-inviter', points: 100, durationSeconds: 3600 },
} as const;

/** A count cap frees a place when someone acts; until then, ask again in an hour. */
const PENDING_RETRY_SECONDS = 3600;
/** Another invitation of the workspace or address is being written: it commits within a few round trips. */
const BUSY_RETRY_SECONDS = 1;

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

/** Refuses past either pending cap; `address` is normalised (the users table's unique lower(email)). */
async function refuseBeyondPendingCaps(tx: Queryable, workspaceId: string, address: string): Promise<void> {
  const { rows } = await tx.query<{ workspace: number; address: number }>(
    `SELECT (SELECT count(*)::int FROM expense_internal.workspace_invitations WHERE workspace_id = $1) AS workspace,
            (SELECT count(*)::int FROM expense_internal.workspace_invitations i
               JOIN expense_internal.users u USING (user_id) WHERE lower(u.email) = $2) AS address`,
    [workspaceId, address],
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
}

function busy(): ApiError {
  return new ApiError(
    'rate_limited',
    'Another invitation to this workspace or of this address is being written right now; nothing was changed.',
    {
      variant: 'invitation_busy',
      headers: { 'retry-after': String(BUSY_RETRY_SECONDS) },
      details: { policy: 'invitation-in-progress', retryAfterSeconds: BUSY_RETRY_SECONDS },
    },
  );
}

/**
 * Admits a NEW invitation of the address `email` to `workspaceId` by `invitedBy`, in the inviting transaction and
 * before it writes anything. It never waits for a lock: first the cheap refusals (the hourly limits, then the
 * pending caps, read without a lock), then the workspace's and the address's invitation locks taken without
 * waiting (busy: 429, Retry-After 1), then the caps again under them, so concurrent invitations cannot both take
 * the last place. Every attempt spends a point of each hourly limit it reaches, and a refused one at least one of
 * the inviter's, so refused attempts end in the hourly limit like admitted ones.
 */
export async function admitInvitation(
  tx: Queryable,
  limiters: InvitationLimiters,
  invitation: { workspaceId: string; email: string; invitedBy: string },
): Promise<void> {
  const { workspaceId, invitedBy } = invitation;
  const address = invitation.email.trim().toLowerCase();
  try {
    await consumeAll([{ limiter: limiters.perAddress, key: address }], 'new invitations of this address');
    await consumeAll(
      [{ limiter: limiters.perWorkspace, key: workspaceId }],
      'new invitations from this workspace',
    );
  } catch (error) {
    await spendQuietly(limiters.perInviter, invitedBy);
    throw error;
  }
  // Spends the inviter's point whether it refuses or not, so every refusal below has spent one.
  await consumeAll(
    [{ limiter: limiters.perInviter, key: invitedBy }],
    'new invitations you send (from all your workspaces)',
  );
  await refuseBeyondPendingCaps(tx, workspaceId, address);
  if (!(await tryLockInvitationTargets(tx, workspaceId, address))) throw busy();
  await refuseBeyondPendingCaps(tx, workspaceId, address);
}

/** One point of a limiter, already exhausted or not: the refusal being answered says what happened. */
async function spendQuietly(limiter: Limiter, key: string): Promise<void> {
  await limiter.limiter.consume(key).catch(() => undefined);
}
