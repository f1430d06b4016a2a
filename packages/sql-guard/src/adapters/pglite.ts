/**
 * `@expense/sql-guard/pglite`: sessions over PGlite.
 *
 * - `PGliteWorkerHost`: a PGlite database in a worker thread. Its transactions are SqlSessions whose
 *   `cancel()` really interrupts a running statement (it terminates the thread and reopens the database
 *   from its data directory; the transaction's uncommitted work is gone, which is the rollback). Use this
 *   for anything that runs untrusted SQL: PostgreSQL's statement_timeout does not fire in WebAssembly.
 *   An in-memory database (no `dataDir`) loses ALL its data when interrupted: servers should give it a
 *   (temporary) directory.
 * - `pgliteSession(tx, db)`: a PGlite transaction in this thread. Nothing can interrupt a statement there,
 *   so the deadline only takes effect between statements.
 */
import type { Worker } from 'node:worker_threads';
import { type Transaction, types } from '@electric-sql/pglite';
import type { SessionResult, SqlSession } from '../types.js';
import { spawnScript } from '../worker-pool.js';
import { compiledPglite } from './pglite-module.js';
import {
  deserializeError,
  type PGliteWorkerData,
  rawParsers,
  toSessionResult,
  type WorkerRequest,
  type WorkerResponse,
} from './pglite-protocol.js';
import { parseSimpleQueryResponse } from './pglite-wire.js';

/**
 * A SqlSession over a PGlite transaction in this thread (`db.transaction(async (tx) => ...)`), or over the database
 * itself for `runInTransaction` (`pgliteSession(db, db)`).
 */
export function pgliteSession(
  tx: Pick<Transaction, 'exec'>,
  db?: { parsers: Record<number | string, unknown> },
): SqlSession {
  // With the instance, its array types are kept as text too (and converted exactly by `run`).
  const options = { parsers: rawParsers(db ?? types) };
  const batch = async (text: string) => (await tx.exec(text, options)).map(toSessionResult);
  return {
    engine: 'pglite',
    database: db ?? tx,
    query: async (text) => (await batch(text)).at(-1) as SessionResult,
    queryBatch: batch,
  };
}

export interface PGliteWorkerHostOptions {
  /** Where the database lives. Undefined: in memory, and lost whenever a statement is interrupted. */
  dataDir?: string;
  /**
   * PostgreSQL settings the database starts with (`-c name=value` on its command line; the data directory's
   * postgresql.conf is left alone), e.g. `{ shared_buffers: '16MB' }`: the buffer cache lives in the
   * WebAssembly heap of this process, and PGlite's default (128MB) is most of that heap once warm.
   */
  settings?: Readonly<Record<string, string>>;
}

/** A transaction of PGliteWorkerHost: a SqlSession, plus parameterised queries for the caller's own SQL. */
export interface PGliteWorkerTransaction extends SqlSession {
  readonly engine: 'pglite';
  /** One statement; with params, through the extended protocol. Values are PostgreSQL's text output. */
  query(text: string, params?: unknown[]): Promise<SessionResult>;
  /** Several statements in one round trip (simple protocol). */
  queryBatch(text: string): Promise<SessionResult[]>;
  /**
   * Interrupts the statement in flight by terminating the worker; the database is reopened from dataDir.
   * The transaction is over: later queries on it fail, and `transaction()` rejects.
   */
  cancel(): Promise<void>;
  /** True once `cancel()` was called. */
  readonly interrupted: boolean;
}

export class PGliteTransactionInterruptedError extends Error {
  override readonly name = 'PGliteTransactionInterruptedError';
  constructor() {
    super('The transaction was interrupted; its uncommitted work is gone.');
  }
}

/**
 * A PGlite database in a worker thread. One transaction at a time: `query`, `exec` and `transaction`
 * calls queue behind the running transaction. Values in results are PostgreSQL's text output.
 */
export class PGliteWorkerHost {
  readonly dataDir: string | undefined;
  readonly #settings: Readonly<Record<string, string>>;
  readonly #wasm: WebAssembly.Module | undefined;
  #connection: WorkerConnection;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(options: PGliteWorkerHostOptions, wasm: WebAssembly.Module | undefined) {
    this.dataDir = options.dataDir;
    this.#wasm = wasm;
    this.#settings = { ...options.settings };
    for (const name of Object.keys(this.#settings)) {
      if (!/^[a-z_][a-z0-9_.]*$/i.test(name)) throw new TypeError(`Not a PostgreSQL setting name: ${name}`);
    }
    this.#connection = this.#connect();
  }

  static async open(options: PGliteWorkerHostOptions = {}): Promise<PGliteWorkerHost> {
    const host = new PGliteWorkerHost(options, await compiledPglite());
    if (await host.#connection.ready) {
      // initdb ran in this thread (a second, temporary PGlite) and its WebAssembly memory stays reserved
      // (~500 MB RSS); a fresh thread on the new directory starts without it.
      await host.#connection.close();
      host.#connection = host.#connect();
      await host.#connection.ready;
    }
    return host;
  }

  #connect(): WorkerConnection {
    return new WorkerConnection({ dataDir: this.dataDir, settings: this.#settings, wasm: this.#wasm });
  }

  async query(text: string, params?: unknown[]): Promise<SessionResult> {
    return this.#exclusive(async () => first(await this.#connection.request({ op: 'query', text, params })));
  }

  async exec(text: string): Promise<SessionResult[]> {
    return this.#exclusive(() => this.#connection.request({ op: 'exec', text }));
  }

  /** Runs `fn` in BEGIN ... COMMIT (ROLLBACK when it throws); exclusive, others wait their turn. */
  async transaction<T>(fn: (tx: PGliteWorkerTransaction) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      const connection = this.#connection;
      await connection.request({ op: 'exec', text: 'BEGIN' });
      const tx = new WorkerTransaction(connection, () => this.#interrupt(connection), this);
      try {
        const value = await fn(tx);
        if (tx.interrupted) throw new PGliteTransactionInterruptedError();
        const [commit] = await connection.request({ op: 'exec', text: 'COMMIT' });
        if (commit?.command === 'ROLLBACK') {
          throw new Error('The transaction failed earlier and was rolled back; nothing was committed.');
        }
        return value;
      } catch (error) {
        if (!tx.interrupted && !tx.finished) {
          await connection.request({ op: 'exec', text: 'ROLLBACK' }).catch(() => undefined);
        }
        throw error;
      } finally {
        tx.finished = true;
      }
    });
  }

  /**
   * Exclusive use of the database outside any transaction, for a caller that sends BEGIN and COMMIT itself
   * inside its batches (a whole transaction in one message to the worker). When `fn` throws, the host rolls
   * back a transaction that is still open; when it resolves, `fn` must have ended its transaction. The
   * session's `cancel()` interrupts like a transaction's.
   */
  async exclusive<T>(fn: (session: PGliteWorkerTransaction) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      const connection = this.#connection;
      const session = new WorkerTransaction(connection, () => this.#interrupt(connection), this);
      try {
        const value = await fn(session);
        if (session.interrupted) throw new PGliteTransactionInterruptedError();
        return value;
      } catch (error) {
        if (!session.interrupted) await connection.request({ op: 'rollback' }).catch(() => undefined);
        throw error;
      } finally {
        session.finished = true;
      }
    });
  }

  /**
   * A consistent copy of the data directory as a gzipped tarball (PGlite's dumpDataDir after a CHECKPOINT), taken
   * in a turn of its own: between transactions, never in the middle of one. `new PGlite({ loadDataDir })` (or
   * PGlite.create) opens it again in an empty directory.
   */
  async dumpDataDir(): Promise<Uint8Array> {
    return this.#exclusive(() => this.#connection.dump());
  }

  /**
   * True once the worker thread serving the database now has answered a request: false while it starts, and again
   * after an interrupt restarted it. Its first statement pays the new backend's start (catalog caches, ~0.5 s of
   * WebAssembly on a slow machine); a caller that times statements can send a cheap one first while this is false.
   */
  get warm(): boolean {
    return this.#connection.answered;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.catch(() => undefined);
    await this.#connection.close();
  }

  /** Terminates the worker running `connection` and starts a fresh one on the same data directory. */
  async #interrupt(connection: WorkerConnection): Promise<void> {
    if (this.#connection === connection && !this.#closed) {
      this.#connection = this.#connect();
    }
    await connection.terminate(new PGliteTransactionInterruptedError());
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The PGlite worker host is closed.'));
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

class WorkerTransaction implements PGliteWorkerTransaction {
  readonly engine = 'pglite' as const;
  interrupted = false;
  finished = false;

  constructor(
    private readonly connection: WorkerConnection,
    private readonly interrupt: () => Promise<void>,
    /** The host: one database, whichever worker thread serves it. */
    readonly database: object,
  ) {}

  async query(text: string, params?: unknown[]): Promise<SessionResult> {
    this.#assertOpen();
    return first(await this.connection.request({ op: 'query', text, params }));
  }

  async queryBatch(text: string): Promise<SessionResult[]> {
    this.#assertOpen();
    return this.connection.request({ op: 'exec', text });
  }

  async cancel(): Promise<void> {
    if (this.interrupted || this.finished) return;
    this.interrupted = true;
    await this.interrupt();
  }

  #assertOpen(): void {
    if (this.interrupted) throw new PGliteTransactionInterruptedError();
    if (this.finished) throw new Error('The transaction is over.');
  }
}

function first(results: SessionResult[]): SessionResult {
  const result = results.at(-1);
  if (!result) throw new Error('PGlite returned no result.');
  return result;
}

type Pending = {
  resolve: (results: SessionResult[]) => void;
  reject: (error: Error) => void;
  /** A `dump` request: resolved with the tarball instead. */
  dump?: (tarball: Uint8Array) => void;
};
type RequestBody = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

/** One worker thread and the requests in flight on it. */
class WorkerConnection {
  /** Resolves once the database is open: true when this start created its data directory. */
  readonly ready: Promise<boolean>;
  #worker: Worker;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #gone: Error | undefined;
  /** A request was answered (successfully or with a database error): the backend has started. */
  answered = false;

  constructor(workerData: PGliteWorkerData) {
    this.#worker = spawnScript(
      import.meta.url,
      { built: './pglite-worker-thread.js', source: './pglite-worker-thread.ts' },
      workerData,
    );
    this.ready = new Promise<boolean>((resolve, reject) => {
      this.#worker.on('message', (message: WorkerResponse) => {
        if ('ready' in message) return resolve(message.created);
        if ('fatal' in message) {
          const error = deserializeError(message.fatal);
          this.#fail(error);
          return reject(error);
        }
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        this.answered = true;
        if (!message.ok) return pending.reject(deserializeError(message.error));
        if ('dump' in message) return pending.dump?.(message.dump);
        if (!('wire' in message)) return pending.resolve(message.results);
        try {
          pending.resolve(parseSimpleQueryResponse(message.wire));
        } catch (error) {
          pending.reject(error as Error);
        }
      });
      this.#worker.on('error', (error) => {
        this.#fail(error);
        reject(error);
      });
      this.#worker.on('exit', (code) => {
        const error = new Error(`The PGlite worker stopped (exit code ${code}).`);
        this.#fail(error);
        reject(error);
      });
    });
    this.ready.catch(() => undefined);
  }

  async request(body: RequestBody): Promise<SessionResult[]> {
    await this.ready;
    if (this.#gone) throw this.#gone;
    const id = this.#nextId++;
    return new Promise<SessionResult[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...body, id } as WorkerRequest);
    });
  }

  async dump(): Promise<Uint8Array> {
    await this.ready;
    if (this.#gone) throw this.#gone;
    const id = this.#nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const wrong = () => reject(new Error('The PGlite worker answered a dump with results.'));
      this.#pending.set(id, { resolve: wrong, reject, dump: resolve });
      this.#worker.postMessage({ op: 'dump', id } satisfies WorkerRequest);
    });
  }

  async terminate(reason: Error): Promise<void> {
    this.#fail(reason);
    await this.#worker.terminate();
  }

  async close(): Promise<void> {
    if (!this.#gone) await this.request({ op: 'close' }).catch(() => undefined);
    await this.terminate(new Error('The PGlite worker host is closed.'));
  }

  #fail(error: Error): void {
    this.#gone ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#gone);
    this.#pending.clear();
  }
}
