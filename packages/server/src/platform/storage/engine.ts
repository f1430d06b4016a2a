import type { SessionResult, SqlSession } from '@expense/sql-guard';

/** One connection inside an open transaction, used by one caller at a time. */
export interface Connection {
  /** Owner value types (see Database); without parameters, one or more statements (simple protocol). */
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
}

/** A guard session that can always send batches. */
export interface BatchSession extends SqlSession {
  queryBatch(text: string): Promise<SessionResult[]>;
  /**
   * The connection cannot keep session settings (a transaction-mode pooler hands each transaction another
   * server session): a user transaction sets the guard's output formats with SET LOCAL in its first round
   * trip (UserConnection.outputSettings).
   */
  setsOutputSettingsPerTransaction?: boolean;
  /**
   * The same connection with owner value types and parameters (one statement with them; several without), for
   * work that runs as the owner in the transaction before its role switch (a revert's bookkeeping).
   */
  ownerQuery<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
  /**
   * Called just before the transaction's COMMIT is sent: from then on its outcome is being decided, and an engine
   * that stops transactions for other tenants (ExclusiveOptions.fairShareMs) leaves this one alone.
   */
  committing?(): void;
}

export interface TransactionSpec {
  readOnly: boolean;
  /** Roll back instead of committing when the body resolves (dry runs). */
  rollback: boolean;
}

/** How a user transaction asks for its exclusive connection (see Database.userTransaction). */
export interface ExclusiveOptions {
  /** Whose transaction it is (the user id): an engine with one connection takes turns between tenants. */
  tenant: string;
  /**
   * Epoch milliseconds by which it must start (have its connection), else StartDeadlineError (nothing ran): bounds
   * the wait for a pooled connection, or for the embedded engine's turn.
   */
  startBy?: number;
  /** Stops waiting for the connection (StartDeadlineError) when it aborts: the client went away. */
  signal?: AbortSignal;
  /** Relations the transaction may write, and whether it rolls back even when its body succeeds. */
  writes?: readonly string[];
  rollsBack?: boolean;
  /** A read-only transaction. */
  readOnly?: boolean;
  /**
   * An engine with one connection may stop the transaction once it ran this long while another tenant waited this
   * long, reads and writes alike: it is rolled back, nothing of it is kept, and it rejects with PreemptedError. Not
   * once its COMMIT is under way (BatchSession.committing).
   */
  fairShareMs?: number;
  /** Whose request it is in the logs (what the engine had to do to stop a statement). */
  requestId?: string;
}

/** COMMIT answered ROLLBACK: the transaction had failed earlier and nothing was applied. */
export class RolledBackError extends Error {
  override readonly name = 'RolledBackError';
}

/** What each engine (pg pool, PGlite worker) provides; transactions.ts builds the Database on it. */
export interface Engine {
  readonly name: 'postgres' | 'pglite';
  /** One query in its own implicit transaction. */
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
  /**
   * BEGIN [READ ONLY]; body; COMMIT (ROLLBACK when body throws or spec.rollback) on one exclusive
   * connection. Rejects with RolledBackError when COMMIT answers ROLLBACK.
   */
  transaction<T>(spec: TransactionSpec, body: (connection: Connection) => Promise<T>): Promise<T>;
  /**
   * One exclusive connection outside any transaction, as a guard session (values as PostgreSQL's text,
   * batches, cancel). The body sends BEGIN and COMMIT itself; when it throws, an open transaction is rolled
   * back (and a broken connection discarded).
   */
  exclusive<T>(body: (session: BatchSession) => Promise<T>, options?: ExclusiveOptions): Promise<T>;
  /** Where the engine can hear other processes (PostgreSQL): see Database.listen. */
  listen?(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  /** True when the error means the connection or the engine is gone (not an SQL error). */
  isConnectionError(error: unknown): boolean;
  /**
   * The embedded engine: a consistent copy of its data directory as a gzipped tarball, taken in a turn of its own
   * between transactions (docs/operations.md, Backups).
   */
  dumpDataDir?(): Promise<Uint8Array>;
  /** The embedded engine: the state of its one connection's turns (TurnsState). */
  turns?(): TurnsState;
  close(): Promise<void>;
}

/**
 * Who has the embedded engine's one connection: transactions holding it (admitted: at most one, the server's
 * maintenance included), user transactions running on the engine (executing), and user transactions waiting for
 * their turn. Read by tests that must know
 * a statement runs before they send the next request, instead of pausing.
 */
export interface TurnsState {
  admitted: number;
  executing: number;
  waiting: number;
}

export interface ListenHandlers {
  /** A NOTIFY on the channel, with its payload. */
  notify(payload: string): void;
  /** Listening (again) after a time without: announcements made meanwhile were missed. */
  reset(): void;
}

/** The logging surface storage needs (pino's Logger satisfies it). */
export interface StorageLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const DATE_OID = 1082;
export const INT8_OID = 20;
