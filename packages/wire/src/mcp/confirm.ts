import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { McpErrorCode } from '../error-catalog.js';

export const CONFIRM_TTL_MS = 10 * 60 * 1000;

interface Claims {
  /** token id: single use, and the source of the Idempotency-Key of the commit */
  id: string;
  /** the key's connectionId */
  k: string;
  /** the workspace the dry run ran in */
  w: string;
  /** SHA-256 of the exact SQL */
  h: string;
  /** expiry, ms since the epoch */
  exp: number;
}

export type Verdict = { ok: true; claims: Claims } | { ok: false; code: McpErrorCode };

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const sqlHash = (sql: string) => createHash('sha256').update(sql, 'utf8').digest('hex');

/**
 * Server-side confirmation of writes: a dry run yields an HMAC token bound to the key, the workspace and the
 * exact SQL, valid 10 minutes and usable once. The secret lives in this object (per stdio process, per HTTP
 * server), so a token is worthless anywhere else; used ids are kept until they expire.
 */
export class Confirmations {
  private readonly secret: Buffer;
  private readonly used = new Map<string, number>();
  private readonly inFlight = new Set<string>();

  constructor(
    secret: Buffer = randomBytes(32),
    private readonly now: () => number = Date.now,
  ) {
    this.secret = secret;
  }

  private sign(payload: string): string {
    return b64(createHmac('sha256', this.secret).update(payload).digest());
  }

  issue(keyId: string, workspaceId: string, sql: string): { token: string; expiresAt: string } {
    const claims: Claims = {
      id: b64(randomBytes(12)),
      k: keyId,
      w: workspaceId,
      h: sqlHash(sql),
      exp: this.now() + CONFIRM_TTL_MS,
    };
    const payload = b64(JSON.stringify(claims));
    return { token: `${payload}.${this.sign(payload)}`, expiresAt: new Date(claims.exp).toISOString() };
  }

  /** Checks a token for this key, SQL and (when named) workspace, and reserves it while the commit runs. */
  claim(token: string, keyId: string, sql: string, workspaceId: string | undefined): Verdict {
    this.prune();
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return { ok: false, code: 'confirmation_invalid' };
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return { ok: false, code: 'confirmation_invalid' };
    }
    let claims: Claims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
    } catch {
      return { ok: false, code: 'confirmation_invalid' };
    }
    if (claims.k !== keyId) return { ok: false, code: 'confirmation_invalid' };
    if (claims.exp <= this.now()) return { ok: false, code: 'confirmation_expired' };
    if (this.used.has(claims.id) || this.inFlight.has(claims.id))
      return { ok: false, code: 'confirmation_used' };
    if (claims.h !== sqlHash(sql) || (workspaceId !== undefined && workspaceId !== claims.w)) {
      return { ok: false, code: 'confirmation_mismatch' };
    }
    this.inFlight.add(claims.id);
    return { ok: true, claims };
  }

  /** The commit answered (success or a definite failure): the token is spent. */
  spend(claims: Claims): void {
    this.inFlight.delete(claims.id);
    this.used.set(claims.id, claims.exp);
  }

  /** The outcome is unknown or the call never ran: the token may be retried (its Idempotency-Key is the same). */
  release(claims: Claims): void {
    this.inFlight.delete(claims.id);
  }

  private prune(): void {
    const now = this.now();
    for (const [id, exp] of this.used) if (exp <= now) this.used.delete(id);
  }
}

/** The Idempotency-Key of a confirmed commit: derived from the token, so a retry can never apply twice. */
export const commitIdempotencyKey = (claims: { id: string }) => `mcp-confirm-${claims.id}`;
