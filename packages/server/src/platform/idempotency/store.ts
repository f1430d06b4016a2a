import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlSession } from '@expense/sql-guard';
import { ApiError } from '../http/api-error.js';
import type { Queryable } from '../storage/database.js';

/** A pending record this request holds; only its holder may complete or release it. */
export interface Claim {
  connectionId: string;
  key: string;
  claimId: string;
}

/** A kept response, sent again byte for byte. */
export interface KeptResponse {
  statusCode: number;
  body: string;
}

export type Begun = { claim: Claim } | { replay: KeptResponse };

export interface IdempotencyOptions {
  /** How long a record is kept (24 h). */
  ttlMs: number;
  /** A pending record older than this was left by a request that can no longer commit (deadline + margin). */
  staleAfterMs: number;
  /** How long a second request with the same key waits for the first one to finish. */
  waitMs: number;
  pollMs: number;
}

const TABLE = 'expense_internal.idempotency_records';

// Inserts a pending record, or takes over an expired one, or a stale pending one of the same request.
// Returns a row only when this request now holds the key.
const CLAIM_SQL = `
INSERT INTO ${TABLE} AS r (connection_id, idempotency_key, request_hash, workspace_id, claim_id, expires_at)
VALUES ($1, $2, $3, $4, $5, now() + $6::interval)
ON CONFLICT (connection_id, idempotency_key) DO UPDATE
  SET request_hash = EXCLUDED.request_hash, workspace_id = EXCLUDED.workspace_id,
      claim_id = EXCLUDED.claim_id, state = 'pending', status_code = NULL, response = NULL,
      response_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
  WHERE r.expires_at <= now()
     OR (r.state = 'pending' AND r.request_hash = EXCLUDED.request_hash AND r.created_at < now() - $7::interval)
RETURNING 1 AS claimed`;

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Idempotency-Key records in the database, so every server process sees them. The first request inserts a
 * pending record in its own committed statement (unique per key and ApiKey), so a concurrent second request
 * finds it, waits, and replays the first one's response. A write's response is recorded inside the write's
 * own transaction (`completionSql`): the record says "completed" exactly when the write committed.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Queryable,
    private readonly options: IdempotencyOptions,
  ) {}

  async begin(input: {
    connectionId: string;
    key: string;
    requestHash: string;
    /** None for a write that is not in a workspace (creating one). */
    workspaceId: string | null;
  }): Promise<Begun> {
    const { connectionId, key, requestHash, workspaceId } = input;
    const giveUpAt = Date.now() + this.options.waitMs;
    for (;;) {
      const claimId = randomUUID();
      const claimed = await this.db.query(CLAIM_SQL, [
        connectionId,
        key,
        requestHash,
        workspaceId,
        claimId,
        `${this.options.ttlMs} milliseconds`,
        `${this.options.staleAfterMs} milliseconds`,
      ]);
      if (claimed.rows.length > 0) return { claim: { connectionId, key, claimId } };
      const { rows } = await this.db.query<{
        request_hash: string;
        state: 'pending' | 'completed';
        status_code: number | null;
        response_body: string | null;
      }>(
        `SELECT request_hash, state, status_code, response_body FROM ${TABLE}
         WHERE connection_id = $1 AND idempotency_key = $2 AND expires_at > now()`,
        [connectionId, key],
      );
      const row = rows[0];
      if (!row) continue; // released or expired in between: claim again
      if (row.request_hash !== requestHash) {
        throw new ApiError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with another request (body, endpoint or workspace).',
        );
      }
      if (row.state === 'completed' && row.status_code !== null && row.response_body !== null) {
        return { replay: { statusCode: row.status_code, body: row.response_body } };
      }
      if (Date.now() >= giveUpAt) {
        throw new ApiError(
          'idempotency_key_reused',
          'A request with this Idempotency-Key is still running.',
          {
            variant: 'in_progress',
            details: { state: 'in_progress' },
          },
        );
      }
      await sleep(this.options.pollMs);
    }
  }

  /**
   * SQL that records the response inside the caller's user transaction (after the guard ran, as the
   * owner role again). Run it with `complete`; the values are a validated UUID, a visible-ASCII key and
   * JSON text, quoted as standard-conforming literals.
   */
  async completeInTransaction(session: SqlSession, claim: Claim, response: KeptResponse): Promise<void> {
    if (!UUID.test(claim.connectionId) || !UUID.test(claim.claimId) || response.body.includes('\0')) {
      throw new Error('idempotency: refusing to record an unexpected value');
    }
    const update = `UPDATE ${TABLE} SET state = 'completed', status_code = ${Math.trunc(response.statusCode)},
      response_body = ${literal(response.body)}
      WHERE connection_id = '${claim.connectionId}' AND idempotency_key = ${literal(claim.key)}
        AND claim_id = '${claim.claimId}' AND state = 'pending'`;
    const results = session.queryBatch
      ? await session.queryBatch(`RESET ROLE; ${update}`)
      : [await session.query('RESET ROLE'), await session.query(update)];
    if (results.at(-1)?.rowCount !== 1) {
      // Another request took the key over (this one outlived the stale limit): commit nothing.
      throw new ApiError('idempotency_key_reused', 'This request lost its Idempotency-Key to a retry.', {
        variant: 'taken_over',
      });
    }
  }

  /**
   * Records a response in the caller's own transaction (the owner's routes: a workspace created, renamed, a member
   * invited), so the record says "done" exactly when the write committed.
   */
  async completeOn(tx: Queryable, claim: Claim, response: KeptResponse): Promise<void> {
    const { rowCount } = await tx.query(
      `UPDATE ${TABLE} SET state = 'completed', status_code = $4, response_body = $5
       WHERE connection_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND state = 'pending'`,
      [claim.connectionId, claim.key, claim.claimId, response.statusCode, response.body],
    );
    if (rowCount !== 1) {
      throw new ApiError('idempotency_key_reused', 'This request lost its Idempotency-Key to a retry.', {
        variant: 'taken_over',
      });
    }
  }

  /** Records a response outside any transaction (refusals and dry runs, where nothing was committed). */
  async complete(claim: Claim, response: KeptResponse): Promise<void> {
    await this.db.query(
      `UPDATE ${TABLE} SET state = 'completed', status_code = $4, response_body = $5
       WHERE connection_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND state = 'pending'`,
      [claim.connectionId, claim.key, claim.claimId, response.statusCode, response.body],
    );
  }

  /**
   * Gives the key back after a failure that committed nothing, so a retry runs. A record that the write's
   * own transaction completed is left alone (the row lock makes this wait for a commit in flight).
   */
  async release(claim: Claim): Promise<void> {
    await this.db.query(
      `DELETE FROM ${TABLE} WHERE connection_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND state = 'pending'`,
      [claim.connectionId, claim.key, claim.claimId],
    );
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.db.query(`DELETE FROM ${TABLE} WHERE expires_at <= now()`);
    return rowCount;
  }
}
