import type { Queryable } from '../../platform/storage/database.js';
import { type KeyRow, selectLiveKeys } from './key-row.js';

export interface BatchedKeyLookupOptions {
  /** Most key hashes in one query. */
  maxBatch: number;
  /** Pause after each query, so the lane sends at most 1000 / pauseMs queries a second. */
  pauseMs: number;
}

export const DEFAULT_BATCHED_LOOKUP: BatchedKeyLookupOptions = { maxBatch: 256, pauseMs: 20 };

interface Waiter {
  hash: string;
  resolve: (row: KeyRow | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * The slow lane of key verification for client addresses that sent too many unknown keys: their lookups are
 * never refused, but wait here and go to the database together, one query at a time (`key_hash = ANY(...)`, at
 * most `maxBatch` hashes, then a pause). However many unknown keys a flood brings, the lane costs the database
 * at most one query in flight and 1000 / pauseMs queries a second, and a valid key in it is answered after at
 * most a few batches. Each batch takes its hashes from the waiting addresses in turn (round robin), so one
 * address's flood does not delay another's keys by more than one place per round.
 */
export class BatchedKeyLookup {
  private readonly waiting = new Map<string, Waiter[]>();
  private running = false;
  private pending = 0;
  /** Queries sent (tests and operators read it). */
  queries = 0;

  constructor(
    private readonly db: Queryable,
    private readonly options: BatchedKeyLookupOptions = DEFAULT_BATCHED_LOOKUP,
  ) {}

  /** Keys waiting now. */
  get size(): number {
    return this.pending;
  }

  lookup(address: string, hash: string): Promise<KeyRow | undefined> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(address);
      if (queue) queue.push({ hash, resolve, reject });
      else this.waiting.set(address, [{ hash, resolve, reject }]);
      this.pending++;
      if (!this.running) {
        this.running = true;
        // After the current turn of the event loop, so that lookups arriving together share a query.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending > 0) {
        const batch = this.takeBatch();
        this.queries++;
        try {
          const hashes = [...new Set(batch.map((w) => w.hash))];
          const { rows } = await this.db.query<KeyRow>(selectLiveKeys('k.key_hash = ANY($1::text[])'), [
            hashes,
          ]);
          const found = new Map(rows.map((r) => [r.key_hash, r]));
          for (const w of batch) {
            const row = found.get(w.hash);
            w.resolve(row);
          }
        } catch (error) {
          for (const w of batch) w.reject(error);
        }
        if (this.pending > 0) await new Promise((r) => setTimeout(r, this.options.pauseMs));
      }
    } finally {
      this.running = false;
    }
  }

  /** Up to maxBatch waiters, one from each address in turn. */
  private takeBatch(): Waiter[] {
    const batch: Waiter[] = [];
    while (batch.length < this.options.maxBatch && this.pending > 0) {
      for (const [address, queue] of this.waiting) {
        const next = queue.shift();
        if (next) {
          batch.push(next);
          this.pending--;
        }
        if (queue.length === 0) this.waiting.delete(address);
        if (batch.length >= this.options.maxBatch) break;
      }
    }
    return batch;
  }
}
