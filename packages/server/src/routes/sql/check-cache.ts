import type { CheckResult, Guard, Mode } from '@expense/sql-guard';

export interface CheckCacheOptions {
  /** Most texts kept; the least recently used goes first. */
  maxEntries: number;
  /** Longer texts are checked every time (they are rarely repeated and costly to keep). */
  maxSqlLength: number;
}

/**
 * The guard's check, remembered per mode and text: agents and dashboards send the same statements again and
 * again, and the check is pure (same guard, text and mode: same result). The kept results are the guard's own
 * objects, so `run` takes them without parsing again. Nothing here is ever changed after the guard made it.
 * The cache is consulted first; a miss goes to `checkAsync`, which checks long texts off the main thread (and
 * rejects with GuardBusyError when its queue is full).
 */
export class CheckCache {
  readonly #results = new Map<string, CheckResult>();

  constructor(
    private readonly guard: Pick<Guard, 'checkAsync'>,
    private readonly options: CheckCacheOptions = { maxEntries: 1000, maxSqlLength: 4096 },
  ) {}

  async check(sql: string, mode: Mode): Promise<CheckResult> {
    if (sql.length > this.options.maxSqlLength) return this.guard.checkAsync(sql, { mode });
    const key = `${mode}:${sql}`;
    const kept = this.#results.get(key);
    if (kept) {
      this.#results.delete(key); // most recently used goes last
      this.#results.set(key, kept);
      return kept;
    }
    const result = await this.guard.checkAsync(sql, { mode });
    if (this.#results.size >= this.options.maxEntries) {
      const oldest = this.#results.keys().next().value;
      if (oldest !== undefined) this.#results.delete(oldest);
    }
    this.#results.set(key, result);
    return result;
  }
}
