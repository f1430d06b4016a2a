/**
 * POST /v1/imports reads its file off the event loop: decoding, recognising and validating up to 10 MiB of rows
 * takes the CPU for seconds, which inline would stall every other request of the server. The pool is the guard's
 * (packages/sql-guard/src/pool/check-pool.ts) made for files: a few worker threads started on first use, a
 * bounded queue, and a read that finds the queue full refused at once (ReadBusyError), never queued without limit.
 * One pool serves the whole process (every server it runs), its threads unref'd so they never hold it open.
 */

import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  BUDGET_TARGET,
  ImportError,
  type ImportExitCode,
  type ImportRequest,
  LEDGER_TARGET,
  type PreparedImport,
} from '@expense/import';
import type { ReadRefusal, ReadRequest, ReadResponse } from './read-protocol.js';

/** Threads: one fewer than the cores, at most 2 (the database and the other requests keep a core). */
export const READ_THREADS = Math.min(2, Math.max(1, availableParallelism() - 1));
/** Files that may wait for a thread beyond those being read; more are refused (each holds its bytes meanwhile). */
export const READ_MAX_QUEUE = 8;
/** Files one user may have read or waiting at once: one user's files never fill the queue for everyone. */
export const READ_PER_USER = 2;

/** The pool's queue is full, or the user has READ_PER_USER files in it already: the file was not read. */
export class ReadBusyError extends Error {
  override readonly name = 'ReadBusyError';
  constructor(
    readonly limit: number,
    readonly mine: boolean,
  ) {
    super(
      mine
        ? `You have ${limit} files being read already; this one was refused.`
        : `The server has ${limit} files waiting to be read; this one was refused.`,
    );
  }
}

/** A file not read by its deadline (counted from its arrival at the pool): its thread is stopped, nothing is kept. */
export class ReadDeadlineError extends Error {
  override readonly name = 'ReadDeadlineError';
  constructor(readonly deadlineMs: number) {
    super(`The file was not read within ${deadlineMs} ms; nothing was changed.`);
  }
}

export interface ReadOptions {
  /** Whose file it is (the user): each may have READ_PER_USER files read or waiting. */
  tenant: string;
  /** Time from now by which the read must have ended, waiting included; its thread is stopped then. */
  deadlineMs: number;
}

interface Job {
  message: Omit<ReadRequest, 'id'>;
  resolve: (prepared: PreparedImport) => void;
  reject: (error: Error) => void;
  /** Epoch ms by which the read must end, and the budget it was given (for the error). */
  endBy: number;
  deadlineMs: number;
}

export class ReadPool {
  readonly #threads: number;
  readonly #maxQueue: number;
  readonly #workers: ReadWorker[] = [];
  readonly #queue: Job[] = [];
  readonly #onStart = new Set<() => void>();
  /** Files read or waiting, per tenant. */
  readonly #held = new Map<string, number>();
  #reading = 0;

  constructor(options: { threads?: number; maxQueue?: number } = {}) {
    this.#threads = Math.max(1, Math.floor(options.threads ?? READ_THREADS));
    this.#maxQueue = Math.max(0, Math.floor(options.maxQueue ?? READ_MAX_QUEUE));
  }

  /** Files being read now (not those waiting): what a test watches to act while a read is under way. */
  get reading(): number {
    return this.#reading;
  }

  /**
   * The file read in a worker thread with prepareImport, hooks answered beforehand: the workspace's currency as
   * given, dates that read two ways refused (an ImportError whose code is read-protocol.ts's DATE_ORDER).
   */
  read(request: ImportRequest, workspaceCurrency: string, options: ReadOptions): Promise<PreparedImport> {
    const { tenant, deadlineMs } = options;
    while (this.#workers.length < this.#threads) this.#workers.push(new ReadWorker(this));
    const held = this.#held.get(tenant) ?? 0;
    if (held >= READ_PER_USER) return Promise.reject(new ReadBusyError(READ_PER_USER, true));
    const idle = this.#workers.find((w) => w.idle);
    if (!idle && this.#queue.length >= this.#maxQueue)
      return Promise.reject(new ReadBusyError(this.#maxQueue, false));
    this.#held.set(tenant, held + 1);
    const release = () => {
      const left = (this.#held.get(tenant) ?? 1) - 1;
      if (left > 0) this.#held.set(tenant, left);
      else this.#held.delete(tenant);
    };
    return new Promise<PreparedImport>((resolve, reject) => {
      const job: Job = {
        message: { request, workspaceCurrency },
        resolve: (prepared) => {
          release();
          resolve(prepared);
        },
        reject: (error) => {
          release();
          reject(error);
        },
        endBy: Date.now() + deadlineMs,
        deadlineMs,
      };
      if (idle) idle.run(job);
      else this.#queue.push(job);
    });
  }

  /** Resolves when a read is under way (at once if one is): what a test waits on to act during a read. */
  whenReading(): Promise<void> {
    if (this.#reading > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const started = () => {
        this.#onStart.delete(started);
        resolve();
      };
      this.#onStart.add(started);
    });
  }

  /** @internal */
  started(): void {
    this.#reading++;
    for (const listener of [...this.#onStart]) listener();
  }

  /** @internal A worker finished its job (or lost it with its thread). */
  finished(): void {
    this.#reading--;
  }

  /** @internal A worker finished its job: the next one waiting, if any. */
  next(): Job | undefined {
    this.finished();
    return this.#queue.shift();
  }

  /**
   * @internal A worker whose thread died is replaced by a fresh one, which takes the next job; one that died
   * before it could start (its script did not load) is not: the files waiting are refused with its error, and the
   * next read starts threads again, so a broken script never respawns in a loop.
   */
  replace(dead: ReadWorker, started: boolean, error: Error): void {
    const i = this.#workers.indexOf(dead);
    if (i < 0) return;
    if (!started) {
      this.#workers.splice(i, 1);
      for (const job of this.#queue.splice(0)) job.reject(error);
      return;
    }
    const fresh = new ReadWorker(this);
    this.#workers[i] = fresh;
    const job = this.#queue.shift();
    if (job) fresh.run(job);
  }
}

const refusalOf = (r: ReadRefusal) =>
  new ImportError(r.code, r.message, r.exitCode as ImportExitCode, { hint: r.hint, details: r.details });

class ReadWorker {
  readonly #worker: Worker;
  #job: Job | undefined;
  #id = 0;
  #gone = false;
  #ready = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly pool: ReadPool) {
    this.#worker = spawnReader();
    this.#worker.unref();
    this.#worker.on('message', (message: ReadResponse) => {
      if ('ready' in message) {
        this.#ready = true;
        return;
      }
      if (message.id !== this.#id || !this.#job) return;
      const job = this.#job;
      this.#job = undefined;
      clearTimeout(this.#timer);
      if ('prepared' in message) {
        const p = message.prepared;
        job.resolve(
          (p.into === 'ledger_entries'
            ? { ...p, target: LEDGER_TARGET }
            : { ...p, target: BUDGET_TARGET }) as PreparedImport,
        );
      } else if ('refusal' in message) job.reject(refusalOf(message.refusal));
      else job.reject(new Error(`the import read failed: ${message.failure}`));
      const next = this.pool.next();
      if (next) this.run(next);
    });
    this.#worker.on('error', (error) => this.#die(error));
    this.#worker.on('exit', (code) => this.#die(new Error(`the import reader exited (${code})`)));
  }

  get idle(): boolean {
    return !this.#job && !this.#gone;
  }

  run(job: Job): void {
    this.#job = job;
    this.#id++;
    this.pool.started();
    // A read that outlives its deadline (a file that is slow to understand, or one that waited long) is stopped
    // with its thread: the work ends with the request, and a fresh thread takes the next file.
    this.#timer = setTimeout(
      () => this.#die(new ReadDeadlineError(job.deadlineMs)),
      Math.max(0, job.endBy - Date.now()),
    );
    this.#worker.postMessage({ id: this.#id, ...job.message } satisfies ReadRequest);
  }

  #die(error: Error): void {
    if (this.#gone) return;
    this.#gone = true;
    clearTimeout(this.#timer);
    if (this.#job) {
      this.#job.reject(error);
      this.#job = undefined;
      this.pool.finished();
    }
    void this.#worker.terminate();
    // A thread stopped at a deadline had started (or was slow to): it is replaced, the files waiting are not refused.
    this.pool.replace(this, this.#ready || error instanceof ReadDeadlineError, error);
  }
}

let shared: ReadPool | undefined;
/** The process's pool, made on first use. */
export const readPool = (): ReadPool => {
  shared ??= new ReadPool();
  return shared;
};

/** From source: the worker's bundle, made once per process. */
let sourceBundle: string | undefined;

/**
 * Built, the worker is its own entry beside the server's bundle (tsup.config.ts: dist/import-read-worker.js). From
 * source (tests, the `@expense/source` condition), read-worker.ts is bundled once by esbuild with the workspace's
 * sources, as the guard's pool does (packages/sql-guard/src/worker-script.ts): a TypeScript loader in the thread
 * would cost more than the read.
 */
function spawnReader(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./import-read-worker.js', here));
  sourceBundle ??= bundleSource(fileURLToPath(new URL('./read-worker.ts', here)));
  return new Worker(sourceBundle, { eval: true });
}

function bundleSource(script: string): string {
  const require = createRequire(script);
  const esbuild = require('esbuild') as typeof import('esbuild');
  const [output] = esbuild.buildSync({
    entryPoints: [script],
    bundle: true,
    conditions: ['@expense/source'],
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  }).outputFiles;
  if (!output) throw new Error(`esbuild made no bundle of ${script}`);
  return output.text;
}
