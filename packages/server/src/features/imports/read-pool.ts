/**
 * POST /v1/imports reads its file off the event loop: decoding, recognising and validating up to 10 MiB of rows
 * takes the CPU for seconds, which inline would stall every other request of the server. The threads are a
 * WorkerPool (piscina, @expense/sql-guard/worker-pool: the guard's check pool is one too), started on first use;
 * the queue is bounded and a read that finds it full is refused at once (ReadBusyError), never queued without
 * limit. One pool serves the whole process (every server it runs); idle threads never hold it open.
 */

import { availableParallelism } from 'node:os';
import {
  BUDGET_TARGET,
  ImportError,
  type ImportExitCode,
  type ImportRequest,
  LEDGER_TARGET,
  type PreparedImport,
} from '@expense/import';
import { WorkerPool, workerScript } from '@expense/sql-guard/worker-pool';
import type { ReadRequest, ReadResponse, ReadStarted } from './read-protocol.js';

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

/** The request's client went away before its file was read: the read was dropped or stopped with its thread. */
export class ReadAbortedError extends Error {
  override readonly name = 'ReadAbortedError';
  constructor() {
    super('The client went away before the file was read; nothing was changed.');
  }
}

export interface ReadOptions {
  /** Whose file it is (the user): each may have READ_PER_USER files read or waiting. */
  tenant: string;
  /** Time from now by which the read must have ended, waiting included; its thread is stopped then. */
  deadlineMs: number;
  /** Aborts when the request's client went away: the read is dropped, or stopped with its thread. */
  signal?: AbortSignal;
}

export class ReadPool {
  readonly #maxQueue: number;
  readonly #pool: WorkerPool<ReadRequest, ReadResponse>;
  /** Files read or waiting, per tenant. */
  readonly #held = new Map<string, number>();
  #nextId = 0;
  /** Reads not yet ended, and those of them a thread has started (its ReadStarted may come after its answer). */
  readonly #live = new Set<number>();
  readonly #reading = new Set<number>();
  readonly #onStart = new Set<() => void>();

  constructor(options: { threads?: number; maxQueue?: number } = {}) {
    this.#maxQueue = Math.max(0, Math.floor(options.maxQueue ?? READ_MAX_QUEUE));
    this.#pool = new WorkerPool({
      // Built, the worker is its own entry beside the server's bundle (tsup.config.ts: dist/import-read-worker.js).
      filename: workerScript(import.meta.url, {
        built: './import-read-worker.js',
        source: './read-worker.ts',
        bundlePackages: true,
      }),
      threads: options.threads ?? READ_THREADS,
      maxQueue: this.#maxQueue,
      onMessage: (message) => this.#started((message as ReadStarted).reading),
    });
  }

  /** Files being read now (not those waiting): what a test watches to act while a read is under way. */
  get reading(): number {
    return this.#reading.size;
  }

  /**
   * The file read in a worker thread with prepareImport, hooks answered beforehand: the workspace's currency as
   * given, dates that read two ways refused (an ImportError whose code is read-protocol.ts's DATE_ORDER).
   */
  async read(
    request: ImportRequest,
    workspaceCurrency: string,
    options: ReadOptions,
  ): Promise<PreparedImport> {
    const { tenant, deadlineMs, signal: clientGone } = options;
    const held = this.#held.get(tenant) ?? 0;
    if (held >= READ_PER_USER) throw new ReadBusyError(READ_PER_USER, true);
    if (this.#pool.busy) throw new ReadBusyError(this.#maxQueue, false);
    this.#held.set(tenant, held + 1);
    const id = ++this.#nextId;
    this.#live.add(id);
    // A read that outlives its deadline (a file that is slow to understand, or one that waited long) is stopped
    // with its thread: the work ends with the request, and a fresh thread takes the next file.
    const deadline = AbortSignal.timeout(Math.max(0, deadlineMs));
    // A client that went away ends its read too: its thread is not held until the deadline for nobody.
    const signal = clientGone ? AbortSignal.any([deadline, clientGone]) : deadline;
    let response: ReadResponse;
    try {
      response = await this.#pool.run({ id, request, workspaceCurrency }, { signal });
    } catch (error) {
      if (deadline.aborted) throw new ReadDeadlineError(deadlineMs);
      if (clientGone?.aborted) throw new ReadAbortedError();
      throw new Error(`the import read failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    } finally {
      this.#live.delete(id);
      this.#reading.delete(id);
      const left = (this.#held.get(tenant) ?? 1) - 1;
      if (left > 0) this.#held.set(tenant, left);
      else this.#held.delete(tenant);
    }
    if ('failure' in response) throw new Error(`the import read failed: ${response.failure}`);
    if ('refusal' in response) {
      const r = response.refusal;
      throw new ImportError(r.code, r.message, r.exitCode as ImportExitCode, {
        hint: r.hint,
        details: r.details,
        situation: r.situation,
      });
    }
    const p = response.prepared;
    return (
      p.into === 'ledger_entries' ? { ...p, target: LEDGER_TARGET } : { ...p, target: BUDGET_TARGET }
    ) as PreparedImport;
  }

  /** Resolves when a read is under way (at once if one is): what a test waits on to act during a read. */
  whenReading(): Promise<void> {
    if (this.#reading.size > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const started = () => {
        this.#onStart.delete(started);
        resolve();
      };
      this.#onStart.add(started);
    });
  }

  #started(id: number): void {
    if (!this.#live.has(id)) return;
    this.#reading.add(id);
    for (const listener of [...this.#onStart]) listener();
  }
}

let shared: ReadPool | undefined;
/** The process's pool, made on first use. */
export const readPool = (): ReadPool => {
  shared ??= new ReadPool();
  return shared;
};
