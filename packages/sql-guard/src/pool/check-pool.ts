/**
 * `check` off the main thread: a small pool of worker threads (worker-pool.ts), each with its own libpg-query
 * instance. Parsing a long text takes the PostgreSQL parser hundreds of milliseconds (a 100,000-character
 * `SELECT 1 IN (1,1,...)`), which inline would stall every other request of the process. The queue is bounded: a
 * check that finds it full is refused at once (GuardBusyError), never queued without limit.
 */
import type { Dialect, Limits, Mode } from '../types.js';
import { WorkerPool, workerScript } from '../worker-pool.js';
import type { PoolRequest, PoolVerdict } from './protocol.js';

export interface CheckPoolOptions {
  /** Worker threads; default 1. */
  threads?: number;
  /** Checks that may wait for a thread (beyond those running); default 64. More are refused. */
  maxQueue?: number;
}

/** The pool's queue is full: the check was not run. Retry later. */
export class GuardBusyError extends Error {
  override readonly name = 'GuardBusyError';
  constructor(readonly maxQueue: number) {
    super(`The guard has ${maxQueue} long texts waiting to be checked; this one was refused.`);
  }
}

/** What a check resolves to when its thread failed under it: refused, as `check` refuses what it cannot judge. */
const notJudged: PoolVerdict = {
  result: {
    ok: false,
    error: {
      code: 'construct_not_allowed',
      message: 'The guard could not judge this SQL, so it is rejected.',
    },
  },
};

export class CheckPool {
  readonly #maxQueue: number;
  readonly #pool: WorkerPool<PoolRequest, PoolVerdict>;

  constructor(dialect: Dialect, limits: Limits, options: CheckPoolOptions = {}) {
    this.#maxQueue = Math.max(0, Math.floor(options.maxQueue ?? 64));
    this.#pool = new WorkerPool({
      filename: workerScript(import.meta.url, {
        built: './pool/check-worker.js',
        source: './check-worker.ts',
      }),
      threads: Math.max(1, Math.floor(options.threads ?? 1)),
      maxQueue: this.#maxQueue,
      workerData: { dialect, limits },
    });
  }

  async check(sql: string, mode: Mode): Promise<PoolVerdict> {
    if (this.#pool.closed) throw new Error('The check pool is closed.');
    if (this.#pool.busy) throw new GuardBusyError(this.#maxQueue);
    try {
      return await this.#pool.run({ sql, mode });
    } catch {
      // Its thread failed under it (or its script did not load).
      if (this.#pool.closed) throw new Error('The check pool is closed.');
      return notJudged;
    }
  }

  /** Stops the threads; checks still waiting or running are rejected. */
  close(): Promise<void> {
    return this.#pool.close();
  }
}
