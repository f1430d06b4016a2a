// The slow lane of key verification (issue: the unknown-key limiter locked out valid keys behind a shared
// address). A flood of unknown keys from over-budget addresses costs at most one query in flight and one
// query per batch; a valid key in the flood is found. Real PGlite, counted by a pass-through Queryable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../../platform/storage/database.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { KeyVerifier } from '../../auth/api-keys.js';
import { createUser, type TestUser } from '../../sql/test/setup.js';

describe('batched key lookups for over-budget addresses (PGlite)', () => {
  let db: Database;
  let user: TestUser;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: 'memory://' });
    user = await createUser(db);
  });
  afterAll(async () => db?.close());

  it('a flood of 600 unknown keys takes 3 queries, never two at once, and the valid key among them is found', async () => {
    let queries = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const counted: Queryable = {
      async query(text, params) {
        queries++;
        if (!text.includes('api_keys WHERE') && !text.includes('key_hash = ANY'))
          return db.query(text, params);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          return await db.query(text, params);
        } finally {
          inFlight--;
        }
      },
    };
    const keys = new KeyVerifier(
      counted,
      { ttlMs: 5_000, maxEntries: 100, lastUsedIntervalMs: 3_600_000 },
      () => {},
      {
        maxBatch: 256,
        pauseMs: 1,
      },
    );
    const guess = (i: number) => `exp_live_${String(i).padStart(43, 'C')}`;
    const slow = async () => '192.0.2.70';
    const flood = Array.from({ length: 600 }, (_, i) =>
      keys.verify(i === 300 ? user.apiKey : guess(i), i % 2 === 0 ? slow : async () => '192.0.2.71'),
    );
    const results = await Promise.all(flood);
    expect(results.filter((p) => p !== undefined)).toHaveLength(1);
    expect(results[300]).toMatchObject({ connectionId: user.connectionId, userId: user.userId });
    // The valid key's last_used_at write is the one more query.
    expect(queries).toBe(3 + 1);
    expect(keys.slowLane.queries).toBe(3);
    expect(maxInFlight).toBe(1);
  });

  it('a revoked key is not found in the lane', async () => {
    const other = await createUser(db, 'revoked');
    await db.query('UPDATE expense_internal.api_keys SET revoked_at = now() WHERE connection_id = $1', [
      other.connectionId,
    ]);
    const keys = new KeyVerifier(db);
    expect(await keys.verify(other.apiKey, async () => '192.0.2.72')).toBeUndefined();
    expect(await keys.verify(user.apiKey, async () => '192.0.2.72')).toMatchObject({
      connectionId: user.connectionId,
      userId: user.userId,
    });
  });
});
