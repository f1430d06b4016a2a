import {
  type CheckResult,
  DEFAULT_OFF_THREAD_LENGTH,
  type Guard,
  GuardBusyError,
  type Mode,
} from '@expense/sql-guard';

export interface CheckCacheOptions {
  /** Most texts kept; the least recently used goes first. */
  maxEntries: number;
  /** Longer texts are checked every time (they are rarely repeated and costly to keep). */
  maxSqlLength: number;
  /**
   * Long texts (checked off the main thread) one user may have in the guard's pool at once, all their keys
   * together; more are refused (GuardBusyError), so that neither one key nor a user's many keys fill the pool's
   * queue: another user's long text waits behind at most this many of theirs.
   */
  maxLongPerUser: number;
}

/** Who asks for a check: the bound on long texts is per user (a user may hold many keys). */
export interface Caller {
  userId: string;
}

const defaults: CheckCacheOptions = { maxEntries: 1000, maxSqlLength: 4096, maxLongPerUser: 4 };

/**
 * The guard's check, remembered per mode and text: agents and dashboards send the same statements again and
 * again, and the check is pure (same guard, text and mode: same result). The kept results are the guard's own
 * objects, so `run` takes them without parsing again. Nothing here is ever changed after the guard made it.
 * The cache is consulted first; a miss goes to `checkAsync`, which checks long texts off the main thread (and
 * rejects with GuardBusyError when its queue is full).
 */
export class CheckCache {
  readonly #results = new Map<string, CheckResult>();
  /** Long checks in the pool per user. */
  readonly #long = new Map<string, number>();
  private readonly options: CheckCacheOptions;

  constructor(
    private readonly guard: Pick<Guard, 'checkAsync'>,
    options: Partial<CheckCacheOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  /** `caller` is who asks (the request's principal), for the bound on long texts. */
  async check(sql: string, mode: Mode, caller: Caller): Promise<CheckResult> {
    if (sql.length > this.options.maxSqlLength) return this.#checkLong(sql, mode, caller);
    const key = `${mode}:${sql}`;
    const kept = this.#results.get(key);
    if (kept) {
      this.#results.delete(key); // most recently used goes last
      this.#results.set(key, kept);
      return kept;
    }
    const result = await this.#checkLong(sql, mode, caller);
    if (this.#results.size >= this.options.maxEntries) {
      const oldest = this.#results.keys().next().value;
      if (oldest !== undefined) this.#results.delete(oldest);
    }
    this.#results.set(key, result);
    return result;
  }

  async #checkLong(sql: string, mode: Mode, { userId }: Caller): Promise<CheckResult> {
    if (sql.length < DEFAULT_OFF_THREAD_LENGTH) return this.guard.checkAsync(sql, { mode });
    const running = this.#long.get(userId) ?? 0;
    if (running >= this.options.maxLongPerUser) throw new GuardBusyError(this.options.maxLongPerUser);
    this.#long.set(userId, running + 1);
    try {
      return await this.guard.checkAsync(sql, { mode });
    } finally {
      const left = (this.#long.get(userId) ?? 1) - 1;
      if (left > 0) this.#long.set(userId, left);
      else this.#long.delete(userId);
    }
  }
}
