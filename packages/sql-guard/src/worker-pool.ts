/**
 * Worker threads for the guard's check pool, its PGlite worker host and the server's import read pool: where a
 * worker's script is (built, or bundled from source), and a bounded pool of threads on it (piscina). Exported as
 * `@expense/sql-guard/worker-pool` for the server; not part of the guard's documented API.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';

export interface ScriptPaths {
  /** The built script, relative to the caller's `import.meta.url`. */
  built: string;
  /** Its TypeScript source, relative to the same. */
  source: string;
  /**
   * From source, bundle the packages it imports too (with the `@expense/source` condition: the workspace's
   * sources), not only its own files. Without, they are required from the source's folder, as built.
   */
  bundlePackages?: boolean;
}

/** From source: each script's bundle file, made once per process. */
const bundles = new Map<string, string>();

/**
 * The file a worker thread runs for one of the caller's scripts; `here` is the caller's `import.meta.url`. Built,
 * the script at `paths.built`. From source (tests, with the `@expense/source` condition), the .ts file at
 * `paths.source`, bundled once per process by esbuild (a development dependency) into a CommonJS file: a
 * TypeScript loader in each worker (tsx's hooks, a thread of their own) costs more CPU than PGlite's own start.
 */
export function workerScript(here: string, paths: ScriptPaths): string {
  if (!here.endsWith('.ts')) return fileURLToPath(new URL(paths.built, here));
  const script = fileURLToPath(new URL(paths.source, here));
  let file = bundles.get(script);
  if (file === undefined) {
    file = writeBundle(bundleSource(here, script, paths.bundlePackages === true));
    bundles.set(script, file);
  }
  return file;
}

/** A plain worker thread on one of the caller's scripts (see workerScript). */
export function spawnScript(here: string, paths: ScriptPaths, workerData: unknown): Worker {
  return new Worker(workerScript(here, paths), { workerData });
}

function bundleSource(here: string, script: string, bundlePackages: boolean): string {
  const require = createRequire(here);
  const esbuild = require('esbuild') as typeof import('esbuild');
  const [output] = esbuild.buildSync({
    entryPoints: [script],
    bundle: true,
    ...(bundlePackages ? { conditions: ['@expense/source'] } : { packages: 'external' as const }),
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  }).outputFiles;
  if (!output) throw new Error(`esbuild made no bundle of ${script}`);
  // The bundle is written outside the package: the packages it requires are found from the script's folder
  // (pnpm links each package's dependencies there).
  return `((require) => {\n${output.text}\n})(require('node:module').createRequire(${JSON.stringify(script)}));`;
}

/**
 * The folder of this OS user's bundles: its own (mode 0700, owned by this user, not a link), so another user of a
 * shared temp folder cannot swap a bundle for code of theirs.
 */
function bundleFolder(): string {
  const uid = process.getuid?.();
  const folder = join(tmpdir(), `expense-worker-bundles-${uid ?? 'user'}`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = lstatSync(folder);
  if (!stat.isDirectory() || (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o077) !== 0))) {
    throw new Error(`${folder} is not a private folder of this user; remove it`);
  }
  return folder;
}

/** Named by its content, so processes running the same sources share the file; written whole, then renamed. */
function writeBundle(code: string): string {
  const folder = bundleFolder();
  const file = join(folder, `${createHash('sha256').update(code).digest('hex').slice(0, 32)}.cjs`);
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, code);
  renameSync(partial, file);
  return file;
}

export interface WorkerPoolOptions {
  /** The script each thread runs (see workerScript): its default export is called with each task. */
  filename: string;
  /** Threads, started on the first task and kept (a thread that dies or is stopped is replaced). */
  threads: number;
  /** Tasks that may wait for a thread beyond those running; `busy` says when one more would be too many. */
  maxQueue: number;
  /** Each thread's `workerData` (node:worker_threads). */
  workerData?: unknown;
  /** What a thread posts on its `parentPort` besides its tasks' answers. */
  onMessage?: (message: unknown) => void;
}

/**
 * A pool of worker threads (piscina) with a bounded queue. Idle threads never hold the process open (piscina
 * unrefs them). A task whose signal aborts is taken from the queue, or stopped with its thread if it is running
 * (rejected with piscina's AbortError); a fresh thread takes the next task. A thread that fails as it starts (its
 * script does not load) ends the pool's threads: the tasks waiting are rejected with its error, and the next task
 * starts threads again, so a broken script never respawns in a loop.
 */
export class WorkerPool<Task, Result> {
  readonly #options: WorkerPoolOptions;
  #piscina: Piscina | undefined;
  /** Why each ended pool ended: what its tasks still waiting are rejected with. */
  readonly #broken = new WeakMap<Piscina, Error>();
  #pending = 0;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#options = {
      ...options,
      threads: Math.max(1, Math.floor(options.threads)),
      maxQueue: Math.max(0, Math.floor(options.maxQueue)),
    };
  }

  /** Every thread has a task and `maxQueue` more wait: a task run now would exceed the bound. */
  get busy(): boolean {
    return this.#pending >= this.#options.threads + this.#options.maxQueue;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs the task in a thread. The caller checks `busy` first; the pool queues what it is given. */
  async run(task: Task, options: { signal?: AbortSignal } = {}): Promise<Result> {
    if (this.#closed) throw new Error('The worker pool is closed.');
    this.#piscina ??= this.#start();
    const piscina = this.#piscina;
    this.#pending++;
    try {
      return (await piscina.run(task, options.signal ? { signal: options.signal } : {})) as Result;
    } catch (error) {
      throw this.#broken.get(piscina) ?? error;
    } finally {
      this.#pending--;
    }
  }

  /** Stops the threads; tasks waiting or running are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    const piscina = this.#piscina;
    this.#piscina = undefined;
    await piscina?.destroy();
  }

  #start(): Piscina {
    const { filename, threads, workerData, onMessage } = this.#options;
    const piscina = new Piscina({
      filename,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData,
    });
    if (onMessage) piscina.on('message', onMessage);
    // Emitted when a thread fails with no task on it: one that could not start.
    piscina.on('error', (error: unknown) => {
      this.#broken.set(piscina, error instanceof Error ? error : new Error(String(error)));
      if (this.#piscina === piscina) this.#piscina = undefined;
      void piscina.destroy();
    });
    return piscina;
  }
}
