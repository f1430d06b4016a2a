import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SqlSession } from '@expense/sql-guard';
import { ApiError } from '../../platform/http/api-error.js';
import type { Queryable } from '../../platform/storage/database.js';
import { INTERNAL_SCHEMA } from '../../platform/storage/names.js';
import type { Principal } from '../auth/api-keys.js';

/** A confirmToken is valid this long after its dry run. */
export const CONFIRM_TTL_MS = 10 * 60 * 1000;
/** Secrets are read again after this long (another process may have rotated them). */
const SECRETS_TTL_MS = 60_000;
const PREFIX = 'ct1';

/** What a token is bound to; `id` makes it single use (and names the Idempotency-Key of its commit). */
export interface ConfirmClaims {
  id: string;
  /** the key's connectionId */
  k: string;
  /** the workspace the dry run ran in */
  w: string;
  /** SHA-256 of the subject: the exact SQL, or `revert <changeId>` */
  h: string;
  /** expiry, ms since the epoch */
  exp: number;
}

export interface IssuedToken {
  confirmToken: string;
  confirmTokenExpiresAt: string;
}

interface Secret {
  id: string;
  key: Buffer;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const subjectHash = (subject: string) => createHash('sha256').update(subject, 'utf8').digest('hex');
const TOKEN = /^ct1\.([0-9]{1,19})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;

/** What a revert's token is bound to, in place of SQL text. */
export const revertSubject = (changeId: string) => `revert ${changeId}`;

/** The Idempotency-Key a commit with this token uses when the request names none: a retry replays, never reapplies. */
export const confirmIdempotencyKey = (claims: ConfirmClaims) => `confirm-${claims.id}`;

/**
 * Confirmation tokens of the HTTP API, valid on every instance and process that shares the database: signed with
 * the newest secret of expense_internal.confirmation_secrets (migration 0035), checked against any kept one, and
 * spent in the transaction of the write they commit (expense_internal.confirmations_used, migration 0036).
 */
export class ConfirmationTokens {
  #secrets: Secret[] = [];
  #readAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<Secret[]> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number = Date.now,
  ) {}

  private async secrets(force = false): Promise<Secret[]> {
    if (!force && this.#secrets.length > 0 && this.now() - this.#readAt < SECRETS_TTL_MS)
      return this.#secrets;
    this.#loading ??= this.db
      .query<{ secret_id: string; secret: Buffer | Uint8Array }>(
        `SELECT secret_id::text AS secret_id, secret FROM ${INTERNAL_SCHEMA}.confirmation_secrets ORDER BY secret_id DESC`,
      )
      .then((r) => {
        this.#secrets = r.rows.map((row) => ({ id: row.secret_id, key: Buffer.from(row.secret) }));
        this.#readAt = this.now();
        return this.#secrets;
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }

  /** A token for this key, the workspace the dry run ran in and the exact subject. */
  async issue(connectionId: string, workspaceId: string, subject: string): Promise<IssuedToken> {
    return (await this.issuer())(connectionId, workspaceId, subject);
  }

  /**
   * issue, with the secret read now: for a caller inside a transaction, where the embedded engine's one
   * connection is taken (the dry run's, which learns its workspace there).
   */
  async issuer(): Promise<(connectionId: string, workspaceId: string, subject: string) => IssuedToken> {
    const [secret] = await this.secrets();
    if (!secret) throw new Error('No confirmation secret: migration 0035 creates one.');
    return (connectionId, workspaceId, subject) => this.sign(secret, connectionId, workspaceId, subject);
  }

  private sign(secret: Secret, connectionId: string, workspaceId: string, subject: string): IssuedToken {
    const claims: ConfirmClaims = {
      id: b64(randomBytes(16)),
      k: connectionId,
      w: workspaceId,
      h: subjectHash(subject),
      exp: this.now() + CONFIRM_TTL_MS,
    };
    const signed = `${PREFIX}.${secret.id}.${b64(JSON.stringify(claims))}`;
    const signature = b64(createHmac('sha256', secret.key).update(signed).digest());
    return {
      confirmToken: `${signed}.${signature}`,
      confirmTokenExpiresAt: new Date(claims.exp).toISOString(),
    };
  }

  /**
   * The claims of a token this key may redeem for `subject`, in the named workspace when one is named; else throws
   * the coded refusal. Whether it was used is decided in the write's transaction (spendInTransaction).
   */
  async verify(
    token: string,
    connectionId: string,
    subject: string,
    workspaceId: string | undefined,
  ): Promise<ConfirmClaims> {
    const match = TOKEN.exec(token);
    if (!match) throw invalid();
    const [, secretId, payload, signature] = match as unknown as [string, string, string, string];
    let secret = (await this.secrets()).find((s) => s.id === secretId);
    secret ??= (await this.secrets(true)).find((s) => s.id === secretId);
    if (!secret) throw invalid();
    const expected = createHmac('sha256', secret.key).update(`${PREFIX}.${secretId}.${payload}`).digest();
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ConfirmClaims;
    if (claims.k !== connectionId) throw invalid();
    if (claims.exp <= this.now()) {
      throw new ApiError('confirmation_expired', undefined, { details: { expiredAt: new Date(claims.exp) } });
    }
    if (claims.h !== subjectHash(subject) || (workspaceId !== undefined && workspaceId !== claims.w)) {
      throw new ApiError('confirmation_mismatch');
    }
    return claims;
  }

  /** Drops the records of expired tokens. */
  async purgeExpired(): Promise<void> {
    await this.db.query(`DELETE FROM ${INTERNAL_SCHEMA}.confirmations_used WHERE expires_at < now()`);
  }
}

const invalid = () => new ApiError('confirmation_invalid');

/** The statement that spends a token: one row, or none when it was used (a concurrent use waits for the first). */
function spendStatement(claims: ConfirmClaims): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(claims.id) || !Number.isFinite(claims.exp)) {
    throw new Error('confirmation: refusing to record an unexpected value');
  }
  const expires = new Date(claims.exp).toISOString();
  return `INSERT INTO ${INTERNAL_SCHEMA}.confirmations_used (token_id, expires_at) VALUES ('${claims.id}', '${expires}') ON CONFLICT DO NOTHING`;
}

/**
 * Spends the token in the transaction of its write (as the owner: RESET ROLE first), so it is used exactly when
 * the write commits; a token used already throws confirmation_used and the write rolls back.
 */
export async function spendInTransaction(session: SqlSession, claims: ConfirmClaims): Promise<void> {
  const insert = spendStatement(claims);
  const results = session.queryBatch
    ? await session.queryBatch(`RESET ROLE; ${insert}`)
    : [await session.query('RESET ROLE'), await session.query(insert)];
  if (results.at(-1)?.rowCount !== 1) throw new ApiError('confirmation_used');
}

/** The same in an owner transaction (reverts, which switch to the SQL role for the user's rows: reset first). */
export async function spendInOwnerTransaction(tx: Queryable, claims: ConfirmClaims): Promise<void> {
  await tx.query('RESET ROLE');
  const result = await tx.query(spendStatement(claims));
  if (result.rowCount !== 1) throw new ApiError('confirmation_used');
}

/** A confirmToken to redeem, and where a refusal of it with dryRun points (`body.dryRun`; none for a revert). */
export interface Redemption {
  principal: Principal;
  token: string | undefined;
  /** A token its caller verified for a subject of its own (an import's file), in place of `token`. */
  verified?: ConfirmClaims;
  /** The exact SQL, `revert <changeId>` or an import's subject: what the token was issued for. */
  subject: string;
  /** The workspace the request names, when it names one. */
  workspaceId: string | undefined;
  dryRun: boolean;
  /** The request's Idempotency-Key, if it sent one. */
  key: string | undefined;
  dryRunIssuePath?: string;
}

/**
 * A dry run's token redeemed: verified for this key, subject and workspace (else the coded refusal), refused with
 * dryRun, and naming the commit's Idempotency-Key when the request names none (a retry replays, never reapplies).
 */
export async function redeemConfirmation(
  confirmations: ConfirmationTokens,
  r: Redemption,
): Promise<{ confirm: ConfirmClaims | undefined; key: string | undefined }> {
  const confirm =
    r.verified ??
    (r.token === undefined
      ? undefined
      : await confirmations.verify(r.token, r.principal.connectionId, r.subject, r.workspaceId));
  if (confirm === undefined) return { confirm: undefined, key: r.key };
  if (r.dryRun) {
    throw new ApiError(
      'invalid_request',
      'confirmToken commits: send it without dryRun.',
      r.dryRunIssuePath
        ? { details: { issues: [{ path: r.dryRunIssuePath, message: 'not with confirmToken' }] } }
        : undefined,
    );
  }
  return { confirm, key: r.key ?? confirmIdempotencyKey(confirm) };
}
