import type { InflightCounter, InflightLimits, InflightRefusal, InflightSubject, Lease } from './types.js';

/** In-flight counts of this process (no REDIS_URL, or Redis unreachable). */
export class MemoryInflightCounter implements InflightCounter {
  readonly #keys = new Map<string, number>();
  readonly #users = new Map<string, number>();

  constructor(private readonly limits: InflightLimits) {}

  /** Requests of `subject` in flight in this process: per key and per user. */
  counts(subject: InflightSubject): { key: number; user: number } {
    return {
      key: this.#keys.get(subject.connectionId) ?? 0,
      user: this.#users.get(subject.userId) ?? 0,
    };
  }

  async acquire(subject: InflightSubject): Promise<Lease | InflightRefusal> {
    return this.acquireNow(subject);
  }

  /** Synchronous: the check and the count happen in one turn of the event loop. */
  acquireNow(subject: InflightSubject): Lease | InflightRefusal {
    const { key, user } = this.counts(subject);
    if (key >= this.limits.perKey) return { scope: 'key', limit: this.limits.perKey };
    if (user >= this.limits.perUser) return { scope: 'user', limit: this.limits.perUser };
    add(this.#keys, subject.connectionId, 1);
    add(this.#users, subject.userId, 1);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        add(this.#keys, subject.connectionId, -1);
        add(this.#users, subject.userId, -1);
      },
    };
  }

  async close(): Promise<void> {}
}

function add(map: Map<string, number>, id: string, delta: number): void {
  const next = (map.get(id) ?? 0) + delta;
  if (next <= 0) map.delete(id);
  else map.set(id, next);
}
