import type { Database, Queryable } from '../../platform/storage/database.js';
import type { KeyVerifier } from './api-keys.js';

/** Which live keys a revocation ends. */
export type Revocation =
  /** One key of the user's (DELETE /v1/keys/{connectionId}); another user's id ends nothing. */
  | { connectionId: string; userId: string }
  /** A console session's key (sign-out). */
  | { connectionId: string; kind: 'console' }
  /** Every key of a user; `removedFrom`: because they were removed from that workspace (their refusals say so). */
  | { userId: string; removedFrom?: string }
  /** An OAuth grant and the key issued under it (migration 0019's trigger revokes the key). */
  | { grantId: string };

type Forget = { connectionId: string } | { userId: string };

async function revokeIn(db: Queryable, what: Revocation): Promise<{ count: number; forget: Forget[] }> {
  if ('grantId' in what) {
    const { rowCount } = await db.query(
      'UPDATE expense_internal.oauth_grants SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL',
      [what.grantId],
    );
    const { rows } = await db.query<{ connection_id: string }>(
      'SELECT connection_id FROM expense_internal.api_keys WHERE oauth_grant_id = $1',
      [what.grantId],
    );
    return { count: rowCount ?? 0, forget: rows.map((r) => ({ connectionId: r.connection_id })) };
  }
  const [condition, params, forget]: [string, unknown[], Forget] =
    'connectionId' in what
      ? 'kind' in what
        ? ['connection_id = $1 AND kind = $2', [what.connectionId, what.kind], what]
        : ['connection_id = $1 AND user_id = $2', [what.connectionId, what.userId], what]
      : ['user_id = $1', [what.userId], what];
  const removedFrom = 'removedFrom' in what ? what.removedFrom : undefined;
  const reason =
    removedFrom === undefined
      ? ''
      : `, revoked_reason = 'removed_from_workspace', revoked_workspace_id = $${params.length + 1}`;
  const { rowCount } = await db.query(
    `UPDATE expense_internal.api_keys SET revoked_at = now()${reason} WHERE ${condition} AND revoked_at IS NULL`,
    removedFrom === undefined ? params : [...params, removedFrom],
  );
  return { count: rowCount ?? 0, forget: [forget] };
}

/**
 * The one way keys end: revoked in the database, which announces it to the other processes (app.ts), and
 * forgotten by this process's verifier at once — after the commit, so that no lookup caches a key in between.
 */
export class KeyStore {
  constructor(
    private readonly db: Database,
    private readonly verifier: KeyVerifier,
  ) {}

  /** Revokes the keys `what` names; how many it ended. */
  async revoke(what: Revocation): Promise<number> {
    const { count, forget } = await revokeIn(this.db, what);
    this.#forget(forget);
    return count;
  }

  /**
   * `work` in an owner transaction, where `revoke` ends keys with the rest of the work (all or nothing); they
   * are forgotten once it committed.
   */
  async transaction<T>(
    work: (tx: Queryable, revoke: (what: Revocation) => Promise<number>) => Promise<T>,
  ): Promise<T> {
    const forget: Forget[] = [];
    const result = await this.db.transaction((tx) =>
      work(tx, async (what) => {
        const revoked = await revokeIn(tx, what);
        forget.push(...revoked.forget);
        return revoked.count;
      }),
    );
    this.#forget(forget);
    return result;
  }

  #forget(forget: Forget[]): void {
    for (const match of forget) this.verifier.invalidate(match);
  }
}
