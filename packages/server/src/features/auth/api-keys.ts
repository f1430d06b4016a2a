import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../platform/storage/database.js';
import {
  BatchedKeyLookup,
  type BatchedKeyLookupOptions,
  DEFAULT_BATCHED_LOOKUP,
} from './batched-key-lookup.js';
import { type KeyAccess, type KeyKind, type KeyRow, selectLiveKeys } from './key-row.js';
import { generateApiKey, isWellFormedApiKey, sha256Hex } from './secrets.js';

export type { KeyAccess, KeyKind } from './key-row.js';

/** Who a verified key belongs to, and what it may do. */
export interface Principal {
  connectionId: string;
  userId: string;
  kind: KeyKind;
  /** 'read' keys may only read. */
  access: KeyAccess;
  /** A key bound to one workspace reaches that workspace only; null reaches all of the user's. */
  workspaceId: string | null;
  /** OAuth access tokens: the resource (RFC 8707) the token was issued for; null for other kinds. */
  resource?: string | null;
}

export interface NewKeyOptions {
  kind?: KeyKind;
  access?: KeyAccess;
  workspaceId?: string | null;
  expiresAt?: Date | null;
}

export interface KeyCacheOptions {
  /** How long a verified key is trusted without asking the database again (other processes' revocations). */
  ttlMs: number;
  /** Most cached keys; the least recently used go first. */
  maxEntries: number;
  /** Write last_used_at at most this often per key. */
  lastUsedIntervalMs: number;
}

export const DEFAULT_KEY_CACHE: KeyCacheOptions = {
  ttlMs: 5_000,
  maxEntries: 10_000,
  lastUsedIntervalMs: 60_000,
};

/** Creates a key row and returns the plaintext key, which is never stored. */
export async function createApiKey(
  tx: Queryable,
  userId: string,
  label: string,
  options: NewKeyOptions = {},
): Promise<{ apiKey: string; connectionId: string; createdAt: Date }> {
  const apiKey = generateApiKey();
  const { rows } = await tx.query<{ connection_id: string; created_at: Date }>(
    `INSERT INTO expense_internal.api_keys (user_id, label, key_hash, prefix, kind, access, workspace_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING connection_id, created_at`,
    [
      userId,
      label,
      sha256Hex(apiKey),
      apiKey.slice(0, 12),
      options.kind ?? 'agent',
      options.access ?? 'read_write',
      options.workspaceId ?? null,
      options.expiresAt ?? null,
    ],
  );
  const row = rows[0]!;
  return { apiKey, connectionId: row.connection_id, createdAt: row.created_at };
}

/**
 * Verifies keys by their SHA-256, with a short in-memory cache. Revocations in this process invalidate the
 * cache at once; on PostgreSQL, so do revocations in other processes (announced by the database, see
 * app.ts); a revocation this process was not told about is seen here within `ttlMs`.
 */
export class KeyVerifier {
  /** Verified keys by hash, each for ttlMs at most (an expiring key no longer than its lifetime). */
  private readonly cache: LRUCache<string, Principal>;
  /** Keys whose last_used_at was written within lastUsedIntervalMs (bounded like the cache). */
  private readonly recentlyUsed: LRUCache<string, true>;
  /** Bumped by every invalidation, so a lookup that raced with a revocation is not cached. */
  private generation = 0;
  /** Lookups of clients that sent too many unknown keys (see platform/ratelimit/invalid-keys.ts). */
  readonly slowLane: BatchedKeyLookup;

  constructor(
    private readonly db: Queryable,
    private readonly options: KeyCacheOptions = DEFAULT_KEY_CACHE,
    private readonly onBackgroundError: (error: unknown) => void = () => {},
    slowLane: BatchedKeyLookupOptions = DEFAULT_BATCHED_LOOKUP,
  ) {
    this.slowLane = new BatchedKeyLookup(db, slowLane);
    this.cache = new LRUCache({ max: options.maxEntries, ttl: options.ttlMs });
    this.recentlyUsed = new LRUCache({ max: options.maxEntries, ttl: options.lastUsedIntervalMs });
  }

  /**
   * The key's principal, or undefined for a malformed, unknown or revoked key. `laneFor` runs only when the
   * database must be asked (not in the cache): it names the client address whose lookups must go through the
   * batched slow lane, or undefined for a direct lookup. No key is refused without its lookup.
   */
  async verify(apiKey: string, laneFor?: () => Promise<string | undefined>): Promise<Principal | undefined> {
    if (!isWellFormedApiKey(apiKey)) return undefined;
    const hash = sha256Hex(apiKey);
    let principal = this.cache.get(hash);
    if (!principal) {
      const slowAddress = await laneFor?.();
      const generation = this.generation;
      const row =
        slowAddress === undefined
          ? (await this.db.query<KeyRow>(selectLiveKeys('k.key_hash = $1'), [hash])).rows[0]
          : await this.slowLane.lookup(slowAddress, hash);
      if (!row) return undefined;
      principal = {
        connectionId: row.connection_id,
        userId: row.user_id,
        kind: row.kind,
        access: row.access,
        workspaceId: row.workspace_id,
        resource: row.resource,
      };
      if (generation !== this.generation) return principal;
      // An expiring key is trusted no longer than its lifetime.
      const lifetime = row.expires_at
        ? new Date(row.expires_at).getTime() - Date.now()
        : Number.POSITIVE_INFINITY;
      if (lifetime > 0) this.cache.set(hash, principal, { ttl: Math.min(this.options.ttlMs, lifetime) });
    }
    this.touch(principal.connectionId);
    return principal;
  }

  /** Records use without a write on every request: at most once per interval per key, in the background. */
  private touch(connectionId: string): void {
    if (this.recentlyUsed.has(connectionId)) return;
    this.recentlyUsed.set(connectionId, true);
    this.db
      .query('UPDATE expense_internal.api_keys SET last_used_at = now() WHERE connection_id = $1', [
        connectionId,
      ])
      .catch(this.onBackgroundError);
  }

  /** Forget every cached key (the announcements of revocations elsewhere may have been missed). */
  invalidateAll(): void {
    this.generation++;
    this.cache.clear();
  }

  /** Forget cached keys after a revocation (by connection or by user). */
  invalidate(match: { connectionId?: string; userId?: string }): void {
    this.generation++;
    const forgotten = [...this.cache.entries()].filter(
      ([, principal]) => principal.connectionId === match.connectionId || principal.userId === match.userId,
    );
    for (const [hash] of forgotten) this.cache.delete(hash);
  }
}
