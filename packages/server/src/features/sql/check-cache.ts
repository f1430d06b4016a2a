import { type CheckResult, DEFAULT_OFF_THREAD_LENGTH, type Guard, type Mode } from '@expense/sql-guard';
import { LRUCache } from 'lru-cache';
import { FairCheckQueue, type Wait } from './check-cache-queue.js';

export interface CheckCacheOptions {
  /** Most texts kept; the least recently used goes first. */
  maxEntries: number;
  /** Longer texts are checked every time (they are rarely repeated and costly to keep). */
  maxSqlLength: number;
  /**
   * Long texts (checked off the main thread) one user may have on their way to the guard's pool at once, all
   * their keys together; more are refused (GuardBusyError). Users take turns (check-cache-queue.ts), so another
   * user's long text waits for the checks running, not for a user's many keys.
   */
  maxLongPerUser: number;
  /** The guard's pool threads (its `checkPool.threads`, default 1): long checks handed to it at once. */
  poolThreads: number;
}

/** Who asks for a check: the bound on long texts is per user (a user may hold many keys). */
export interface Caller {
  userId: string;
}

const defaults: CheckCacheOptions = {
  maxEntries: 1000,
  maxSqlLength: 4096,
  maxLongPerUser: 4,
  poolThreads: 1,
};
/** Long texts that may wait for the pool in all (the pool's own default queue). */
const MAX_WAITING = 64;

/**
 * The guard's check, remembered per mode and text: agents and dashboards send the same statements again and
 * again, and the check is pure (same guard, text and mode: same result). The kept results are the guard's own
 * objects, so `run` takes them without parsing again. Nothing here is ever changed after the guard made it.
 * The cache is consulted first; a miss goes to `checkAsync`, which checks long texts off the main thread; long
 * texts reach it through a queue where users take turns (and are refused with GuardBusyError past its bounds).
 */
export class CheckCache {
  readonly #results: LRUCache<string, CheckResult>;
  readonly #long: FairCheckQueue;
  private readonly options: CheckCacheOptions;

  constructor(
    private readonly guard: Pick<Guard, 'checkAsync'>,
    options: Partial<CheckCacheOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    this.#results = new LRUCache({ max: this.options.maxEntries });
    this.#long = new FairCheckQueue({
      perUser: this.options.maxLongPerUser,
      concurrency: this.options.poolThreads,
      maxWaiting: MAX_WAITING,
    });
  }

  /**
   * `caller` is who asks (the request's principal), for the bound on long texts; `wait` bounds a long text's wait
   * for the guard's pool (see FairCheckQueue.check).
   */
  async check(sql: string, mode: Mode, caller: Caller, wait?: Wait): Promise<CheckResult> {
    if (sql.length > this.options.maxSqlLength) return this.#checkLong(sql, mode, caller, wait);
    const key = `${mode}:${sql}`;
    const kept = this.#results.get(key);
    if (kept) return kept;
    const result = await this.#checkLong(sql, mode, caller, wait);
    this.#results.set(key, result);
    return result;
  }

  async #checkLong(sql: string, mode: Mode, { userId }: Caller, wait?: Wait): Promise<CheckResult> {
    if (sql.length < DEFAULT_OFF_THREAD_LENGTH) return this.guard.checkAsync(sql, { mode });
    return this.#long.check(userId, () => this.guard.checkAsync(sql, { mode }), wait);
  }
}
