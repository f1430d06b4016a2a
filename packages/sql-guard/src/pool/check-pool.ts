/**
 * `check` off the main thread: a small pool of worker threads, each with its own libpg-query instance. Parsing a
 * long text takes the PostgreSQL parser hundreds of milliseconds (a 100,000-character `SELECT 1 IN (1,1,...)`),
 * which inline would stall every other request of the process. The queue is bounded: a check that finds it full
 * is refused at once (GuardBusyError), never queued without limit.
 */
import type { Worker } from 'node:worker_threads';
import type { Dialect, Limits, Mode } from '../types.js';
import { spawnScript } from '../worker-script.js';
import type { PoolRequest, PoolResponse, PoolVerdict } from './protocol.js';

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

/** What a check resolves to when its thread died under it: refused, as `check` refuses what it cannot judge. */
const notJudged: PoolVerdict = {
  result: {
    ok: false,
    error: {
      code: 'construct_not_allowed',
      message: 'The guard could not judge this SQL, so it is rejected.',
    },
  },
};

interface Job {
  sql: string;
  mode: Mode;
  resolve: (verdict: PoolVerdict) => void;
  reject: (error: Error) => void;
}

export class CheckPool {
  readonly #threads: number;
  readonly #maxQueue: number;
  readonly #workers: PoolWorker[] = [];
  readonly #queue: Job[] = [];
  #closed = false;

  constructor(
    private readonly dialect: Dialect,
    private readonly limits: Limits,
    options: CheckPoolOptions = {},
  ) {
    this.#threads = Math.max(1, Math.floor(options.threads ?? 1));
    this.#maxQueue = Math.max(0, Math.floor(options.maxQueue ?? 64));
  }

  check(sql: string, mode: Mode): Promise<PoolVerdict> {
    if (this.#closed) return Promise.reject(new Error('The check pool is closed.'));
    if (this.#workers.length === 0) {
      for (let i = 0; i < this.#threads; i++) this.#workers.push(new PoolWorker(this));
    }
    const idle = this.#workers.find((w) => w.idle);
    if (!idle && this.#queue.length >= this.#maxQueue)
      return Promise.reject(new GuardBusyError(this.#maxQueue));
    return new Promise<PoolVerdict>((resolve, reject) => {
      const job = { sql, mode, resolve, reject };
      if (idle) idle.run(job);
      else this.#queue.push(job);
    });
  }

  /** Stops the threads; checks still waiting are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('The check pool is closed.'));
    await Promise.all(this.#workers.splice(0).map((w) => w.terminate()));
  }

  /** @internal A worker's start data. */
  get workerData(): { dialect: Dialect; limits: Limits } {
    return { dialect: this.dialect, limits: this.limits };
  }

  /** @internal Called by a worker that finished a job (or was replaced): the next job, if any. */
  next(): Job | undefined {
    return this.#queue.shift();
  }

  /** @internal A worker whose thread died is replaced by a fresh one. */
  replace(dead: PoolWorker): void {
    const i = this.#workers.indexOf(dead);
    if (i < 0 || this.#closed) return;
    const fresh = new PoolWorker(this);
    this.#workers[i] = fresh;
    const job = this.next();
    if (job) fresh.run(job);
  }
}

class PoolWorker {
  readonly #worker: Worker;
  #job: Job | undefined;
  #id = 0;
  #gone = false;

  constructor(private readonly pool: CheckPool) {
    this.#worker = spawnScript(
      import.meta.url,
      { built: './pool/check-worker.js', source: './check-worker.ts' },
      pool.workerData,
    );
    this.#worker.unref();
    this.#worker.on('message', (message: PoolResponse) => {
      if ('ready' in message) return;
      if ('fatal' in message) return this.#die();
      if (message.id !== this.#id || !this.#job) return;
      const job = this.#job;
      this.#job = undefined;
      job.resolve(
        message.shapes ? { result: message.result, shapes: message.shapes } : { result: message.result },
      );
      const next = this.pool.next();
      if (next) this.run(next);
    });
    this.#worker.on('error', () => this.#die());
    this.#worker.on('exit', () => this.#die());
  }

  get idle(): boolean {
    return !this.#job && !this.#gone;
  }

  run(job: Job): void {
    this.#job = job;
    this.#id++;
    this.#worker.postMessage({ id: this.#id, sql: job.sql, mode: job.mode } satisfies PoolRequest);
  }

  async terminate(): Promise<void> {
    this.#gone = true;
    this.#job?.reject(new Error('The check pool is closed.'));
    this.#job = undefined;
    await this.#worker.terminate();
  }

  #die(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#job?.resolve(notJudged);
    this.#job = undefined;
    void this.#worker.terminate();
    this.pool.replace(this);
  }
}
