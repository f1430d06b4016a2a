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
   * Unused since migration 0008: user transactions no longer PREPARE their context (a transaction-mode
   * pooler does not keep a session's prepared statements). Kept until every engine stops setting it.
   */
  prepared?: Set<string>;
  /**
   * The connection cannot keep session settings (a transaction-mode pooler hands each transaction another
   * server session): the user transaction sets the guard's output formats with SET LOCAL in its first round
   * trip, checks them in its context SELECT, and tells the guard they are pinned.
   */
  setsOutputSettingsPerTransaction?: boolean;
}

export interface TransactionSpec {
  readOnly: boolean;
  /** Roll back instead of committing when the body resolves (dry runs). */
  rollback: boolean;
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
  exclusive<T>(body: (session: BatchSession) => Promise<T>): Promise<T>;
  /** Where the engine can hear other processes (PostgreSQL): see Database.listen. */
  listen?(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  /** True when the error means the connection or the engine is gone (not an SQL error). */
  isConnectionError(error: unknown): boolean;
  close(): Promise<void>;
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
