import type { SessionResult, SqlSession } from '@expense/sql-guard';
import type { ListenHandlers, TurnsState } from './engine.js';

/**
 * Rows of an internal (owner-role) query. Without parameters the text may hold several statements (one
 * simple-protocol round trip, as pg does); the rows are then those of the last statement.
 */
export interface Queryable {
  query<R = Record<string, unknown>>(
    text: string,
    params?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
}

/** The identity and workspace every user-SQL transaction runs under (row-level security reads these). */
export interface UserContext {
  userId: string;
  /**
   * The workspace id, or how to find it inside the transaction's first round trip (as the owner, before the
   * role changes): `requested` is a workspace the user must be a member of, `savedBy` the saved workspace
   * of a key (connection id) if the user is still a member. When the lookup finds nothing, the transaction
   * stops before any user SQL runs and rejects with WorkspaceNotResolvedError.
   */
  workspaceId: string | { requested: string } | { savedBy: string };
  readOnly: boolean;
  /** Opens a change for the transaction: its writes are recorded in the change history (migration 0017). */
  change?: ChangeOrigin;
}

/** Where a recorded change came from. */
export interface ChangeOrigin {
  /** 'execute' or 'script' (the SQL endpoints), 'revert'. */
  endpoint: string;
  /** The key's connection id. */
  connectionId: string;
  sql: string;
  /** The group the change belongs to (migration 0042: the batches of one import), from X-Change-Group. */
  group?: ChangeGroup;
}

/** A change group as a request names it: a UUID the client chose and a label (at most 200 characters). */
export interface ChangeGroup {
  id: string;
  label: string;
}

export interface UserTransactionOptions {
  /** Roll back instead of committing when fn resolves (dry runs). */
  rollback?: boolean;
  /**
   * Epoch milliseconds by which the transaction must have started: an engine that queues user transactions
   * (PGlite) rejects with StartDeadlineError, running nothing, when it cannot start it by then.
   */
  startBy?: number;
  /** The relations the user SQL may write (the embedded engine reclaims their space after a rollback). */
  writes?: readonly string[];
  /** See ExclusiveOptions.fairShareMs: the embedded engine may stop (and roll back) the transaction (PreemptedError). */
  fairShareMs?: number;
}

/** How the SQL endpoints ask for a connection of their own (see Database.userConnection). */
export interface UserConnectionOptions {
  /** Whose request it is (the user id): the embedded engine takes turns between users. */
  tenant: string;
  /** The transaction will be READ ONLY: a lost COMMIT is then DatabaseUnavailableError, not an unknown outcome. */
  readOnly: boolean;
  /** The transaction rolls back even when it succeeds (dry runs). */
  rollsBack: boolean;
  /** Epoch milliseconds by which the connection must be had, else StartDeadlineError (nothing ran). */
  startBy?: number;
  /** Stop waiting for a connection (AbortError-free: the wait rejects with StartDeadlineError). */
  signal?: AbortSignal;
  /** The relations the user SQL may write (the embedded engine reclaims their space after a rollback). */
  writes?: readonly string[];
  /** See ExclusiveOptions.fairShareMs. */
  fairShareMs?: number;
  /** See ExclusiveOptions.requestId. */
  requestId?: string;
}

/** One exclusive connection outside any transaction, for a caller that plans its own round trips. */
export interface UserConnection {
  /** The connection as a guard session: PostgreSQL's text values, batches, and a cancel of the statement in flight. */
  readonly session: SqlSession & { queryBatch(text: string): Promise<SessionResult[]> };
  /**
   * `pinned`: the connection started with the guard's output settings. `per-transaction`: it cannot keep session
   * settings (a transaction-mode pooler), so each transaction sets them in its context SELECT (set_config, local).
   */
  readonly outputSettings: 'pinned' | 'per-transaction';
  /** The same connection as the owner (owner value types, parameters), for bookkeeping before the role switch. */
  readonly owner: Queryable;
  /** Sends COMMIT in a round trip of its own (a lost answer to it is an unknown outcome, see userTransaction). */
  commit(): Promise<void>;
}

/** What a user transaction learnt in its first round trip. */
export interface UserScope {
  /** The workspace the transaction runs in; known once the session sent its first statement. */
  readonly workspaceId: string;
  /** The workspace's time zone (workspace_settings.timezone, UTC without a settings row); known with it. */
  readonly timeZone: string;
  /** The change-history entry this transaction opened (a write that commits records it), when it opened one. */
  readonly changeId?: string;
}

/**
 * One database, embedded (PGlite) or a PostgreSQL server. Internal queries run as the owner role and can
 * reach every table; user SQL only ever runs inside `userTransaction`, as the restricted SQL role.
 * Value types of owner queries are the same on both engines: bigint and numeric as decimal strings, date as
 * 'YYYY-MM-DD', timestamps as Date, json as parsed values.
 */
export interface Database extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** An owner-role transaction; commits when fn resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * A transaction under the restricted SQL role with the user and workspace context set (SET LOCAL ROLE,
   * set_config(..., true)). Commits when fn resolves unless `rollback` is true (dry runs); rolls back when it throws.
   * BEGIN and the context travel in a round trip of their own, before fn. Throws InvalidContextError for ids that are not UUIDs
   * (before any I/O), WorkspaceNotResolvedError when a workspace lookup finds nothing, DatabaseUnavailableError
   * when the connection is lost before the outcome is decided, MutationOutcomeUnknownError when a writing
   * COMMIT could not be confirmed (errors.ts).
   */
  userTransaction<T>(
    ctx: UserContext,
    fn: (session: SqlSession, scope: UserScope) => Promise<T>,
    options?: UserTransactionOptions,
  ): Promise<T>;
  /**
   * An exclusive connection for user SQL, outside any transaction: the body sends BEGIN, the context
   * (transactions.ts) and COMMIT itself, in the round trips it plans (src/features/sql/pipeline.ts). When the body throws, an
   * open transaction is rolled back. Errors map as in userTransaction; StartDeadlineError when no connection was
   * had by `startBy` (or `signal` aborted first), PreemptedError (embedded engine) as in ExclusiveOptions.
   */
  userConnection<T>(
    options: UserConnectionOptions,
    body: (connection: UserConnection) => Promise<T>,
  ): Promise<T>;
  /**
   * On PostgreSQL, LISTENs on `channel` over a connection of its own, kept open (reconnected after a loss,
   * then `reset` is called) until the returned stop function; undefined on PGlite, which has one process.
   */
  listen?(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  /** The embedded engine only: a consistent copy of the data directory, a gzipped tarball (Engine.dumpDataDir). */
  dumpDataDir?(): Promise<Uint8Array>;
  /** The embedded engine only: who has its one connection and who waits (Engine.turns). */
  turns?(): TurnsState;
  close(): Promise<void>;
}
