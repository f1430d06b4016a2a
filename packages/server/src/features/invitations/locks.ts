import { createHash } from 'node:crypto';
import type { Queryable } from '../../platform/storage/database.js';

/**
 * The advisory-lock spaces of invitation admission, in PostgreSQL's two-int4 form, which never overlaps the
 * one-bigint locks of migrations and FX imports: 'invw' and 'inva' in ASCII.
 */
const WORKSPACE_SPACE = 0x696e7677;
const ADDRESS_SPACE = 0x696e7661;

/** A key's second int4: the first 4 bytes of its SHA-256 (a collision only makes an attempt answer "busy"). */
const keyOf = (value: string): number => createHash('sha256').update(value).digest().readInt32BE(0);

/** The (space, key) pairs of the two locks, workspace first: the order every admission takes them in. */
export function invitationLockKeys(workspaceId: string, address: string): [number, number][] {
  return [
    [WORKSPACE_SPACE, keyOf(workspaceId.toLowerCase())],
    [ADDRESS_SPACE, keyOf(address)],
  ];
}

/**
 * Takes, without waiting, the transaction-scoped locks that serialise new invitations of one workspace and of one
 * address (normalised), always in this order; false when another transaction holds either. A lock only the server
 * takes: the SQL role may execute no advisory-lock function (migration 0012, and none is in the dialect), so no
 * statement of a user can hold it, and a row lock of a user (FOR KEY SHARE on the workspace through a foreign
 * key) does not touch it.
 */
export async function tryLockInvitationTargets(
  tx: Queryable,
  workspaceId: string,
  address: string,
): Promise<boolean> {
  const { rows } = await tx.query<{ workspace: boolean; address: boolean }>(
    'SELECT pg_try_advisory_xact_lock($1::int4, $2::int4) AS workspace, pg_try_advisory_xact_lock($3::int4, $4::int4) AS address',
    invitationLockKeys(workspaceId, address).flat(),
  );
  const row = rows[0];
  return row?.workspace === true && row.address === true;
}
