/** What the PGlite adapters share between the main thread and the worker thread. */
import type { Results } from '@electric-sql/pglite';
import type { SessionResult } from '../types.js';

/** What a worker thread starts with. */
export interface PGliteWorkerData {
  /** The data directory; none: in memory. */
  dataDir: string | undefined;
  /** PostgreSQL settings, given on the command line. */
  settings: Readonly<Record<string, string>>;
  /** PGlite's WebAssembly, compiled by the main thread (pglite-module.ts); none: the worker compiles it. */
  wasm: WebAssembly.Module | undefined;
}

export type WorkerRequest =
  | { id: number; op: 'query'; text: string; params?: unknown[] }
  | { id: number; op: 'exec'; text: string }
  /** ROLLBACK if a transaction is open (no warning otherwise). */
  | { id: number; op: 'rollback' }
  /** CHECKPOINT, then the data directory as a gzipped tarball (PGlite's dumpDataDir). */
  | { id: number; op: 'dump' }
  | { id: number; op: 'close' };

export type WorkerResponse =
  | { id: number; ok: true; results: SessionResult[] }
  /** A simple query's raw backend messages (parsed by the main thread: pglite-wire.ts). */
  | { id: number; ok: true; wire: Uint8Array }
  /** The answer to `dump`: a gzipped tarball of the data directory. */
  | { id: number; ok: true; dump: Uint8Array }
  | { id: number; ok: false; error: SerializedError }
  /** `created`: this start ran initdb in a new data directory. */
  | { ready: true; created: boolean }
  | { fatal: SerializedError };

export interface SerializedError {
  message: string;
  name?: string;
  [field: string]: unknown;
}

const errorFields = [
  'code',
  'position',
  'constraint',
  'column',
  'table',
  'schema',
  'dataType',
  'detail',
  'hint',
  'severity',
  'where',
] as const;

/** A PostgreSQL error as plain data (it crosses the thread boundary). */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { message: String(error) };
  const out: SerializedError = { message: error.message, name: error.name };
  for (const key of errorFields) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The error again, with PostgreSQL's fields (code, position, constraint, ...) as properties. */
export function deserializeError(data: SerializedError): Error {
  const { message, name, ...fields } = data;
  return Object.assign(new Error(message), name ? { name } : {}, fields);
}

// Identity parsers for every type the instance would parse: values stay PostgreSQL's text output.
const rawParsersCache = new WeakMap<object, Record<string, (value: string) => string>>();

export function rawParsers(db: {
  parsers: Record<number | string, unknown>;
}): Record<string, (value: string) => string> {
  let parsers = rawParsersCache.get(db);
  if (!parsers) {
    parsers = Object.fromEntries(Object.keys(db.parsers).map((oid) => [oid, (value: string) => value]));
    rawParsersCache.set(db, parsers);
  }
  return parsers;
}

export function toSessionResult(result: Results<unknown>): SessionResult {
  return {
    command: result.command ?? '',
    rowCount: result.rowCount ?? null,
    fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    rows: result.rows as unknown as Record<string, unknown>[],
  };
}
