/** Public types of @expense/sql-guard (see the package README). */

export type Operation = 'select' | 'insert' | 'update' | 'delete';
export type Mode = 'query' | 'execute' | 'script';

export interface Dialect {
  /**
   * The relations a statement may name, with the operations each allows and every column a statement may
   * name: a column reference that resolves to no column in scope is refused (`column_not_allowed`).
   */
  relations: Record<string, DialectRelation>;
  /** Allowed function-like constructs, lower case, unqualified. */
  functions: string[];
  /** Allowed target types of casts and typed literals. */
  castTypes: string[];
  /** The dialect's own texts for the refusals that name a mode (a server names its routes here). */
  hints?: DialectHints;
}

/** One relation of a dialect. */
export interface DialectRelation {
  operations: Operation[];
  /** Every column a statement may name, in the table's order. */
  columns: string[];
  /**
   * The role may read only these columns of the relation (column privileges keep the others private): `*`, `t.*`,
   * NATURAL joins, alias column lists and INSERT without a column list are refused on it, since PostgreSQL would
   * count the private columns too. introspectDialect sets it; verifyDialect checks `columns` against the readable ones.
   */
  partial?: boolean;
}

/**
 * How refusals about modes speak. By default they name the guard's modes ("query mode"); a server that maps modes
 * to routes says so here, e.g. `{ modes: { query: '/sql/query', ... }, read: 'send reads (SELECT) to /sql/query' }`.
 */
export interface DialectHints {
  /** How messages name each mode; default "query mode", "execute mode", "script mode". */
  modes?: Partial<Record<Mode, string>>;
  /** statement_kind_mismatch: a read where a write was expected. */
  read?: string;
  /** statement_kind_mismatch: a write where a read was expected. */
  write?: string;
  /** statement_kind_mismatch: a statement that reads and writes (data-modifying WITH). */
  mixed?: string;
  /** multiple_statements_not_allowed. */
  oneStatement?: string;
}

/** One way a dialect differs from the database it runs on (verifyDialect). */
export interface DialectDifference {
  kind:
    | 'missing_relation'
    | 'extra_relation'
    | 'missing_column'
    | 'extra_column'
    | 'column_order'
    | 'operation_not_granted'
    | 'operation_outside_dialect'
    | 'view_bypasses_rls'
    | 'cross_tenant_reference'
    | 'tenant_table_without_rls'
    | 'role_bypasses_rls'
    | 'view_reads_with_owner_rights'
    | 'view_calls_definer_function';
  relation: string;
  column?: string;
  operation?: Operation;
  /**
   * view_bypasses_rls, view_reads_with_owner_rights: the table the view reads with another role's rights;
   * tenant_table_without_rls, role_bypasses_rls: the table (schema-qualified) whose rows are not kept apart.
   */
  table?: string;
  /** view_calls_definer_function: the SECURITY DEFINER function (schema-qualified). */
  function?: string;
  /** cross_tenant_reference: the foreign key's name. */
  constraint?: string;
  /** One sentence naming the difference. */
  message: string;
}

export interface Limits {
  /** Default 100_000 characters. */
  maxSqlLength: number;
  /** Default 100 statements per script. */
  maxStatements: number;
  /** Default 100 rows per statement. */
  maxReturnedRows: number;
  /** Default 100 rows per statement and per request. */
  maxAffectedRows: number;
  /** Default 25_000 ms per request. */
  deadlineMs: number;
  /**
   * Default 4 MiB (4_194_304 bytes) per request: the returned rows as JSON text (UTF-8), all statements
   * together. Passing it fails the request with `result_too_large`.
   */
  maxResultBytes: number;
  /**
   * Default 100_000 nodes per statement: the size of the statement's trees once PostgreSQL inlines its derived
   * tables, CTEs and subqueries (a column referenced N times is copied N times) and rewrites BETWEEN and IN (their
   * left operand copied). Passing it refuses the statement with `statement_too_complex`, before anything runs.
   */
  maxExpandedNodes: number;
  /**
   * Default 4 MiB (4_194_304) per statement: the bytes PostgreSQL may build while it copies and folds the
   * statement's constants — a constant weighs its length (a numeric its digits), an expression over constants the
   * value it folds to, a derived table's column what it copies, multiplied by the copies made, and matching or
   * multiplying two constants (LIKE, ILIKE, *, /, %) one byte per 64 pairs of their bytes. Passing it refuses the
   * statement with `statement_too_complex` (the hint names the literal or column copied), before anything runs.
   */
  maxExpandedBytes: number;
}

/** Every code `check` can return (README, "Error codes"); stable. */
export const GUARD_ERROR_CODES = [
  'empty_sql',
  'sql_too_long',
  'syntax_error',
  'multiple_statements_not_allowed',
  'too_many_statements',
  'statement_not_allowed',
  'statement_kind_mismatch',
  'relation_not_allowed',
  'operation_not_allowed',
  'function_not_allowed',
  'type_not_allowed',
  'on_conflict_not_allowed',
  'comment_not_allowed',
  'quoted_identifier_not_allowed',
  'dollar_quoted_string_not_allowed',
  'nonstandard_string_literal_not_allowed',
  'locking_clause_not_allowed',
  'select_into_not_allowed',
  'column_not_allowed',
  'construct_not_allowed',
  'statement_too_complex',
] as const;

export type GuardErrorCode = (typeof GUARD_ERROR_CODES)[number];

/** Every code a GuardRunError can carry (README, "Running statements within limits"); stable. */
export const RUN_ERROR_CODES = [
  'mutation_row_limit_exceeded',
  'deadline_exceeded',
  'result_too_large',
  'sql_execution_failed',
  'no_transaction',
  'session_settings_invalid',
  'dialect_drift',
] as const;

export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/**
 * Every code an error of the dialect functions carries (createGuard, introspectDialect, verifyDialect,
 * grantStatements); stable. Test `error.code`: `instanceof` breaks across the ESM and CJS builds.
 */
export const DIALECT_ERROR_CODES = ['invalid_dialect', 'introspection_failed', 'invalid_argument'] as const;

export type DialectErrorCode = (typeof DIALECT_ERROR_CODES)[number];

export interface Position {
  /** 0-based offset in the submitted text (UTF-16 code units, as JavaScript indexes strings). */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface GuardViolation {
  code: GuardErrorCode;
  message: string;
  hint?: string;
  position?: Position;
  statementIndex?: number;
  /**
   * Which situation of its code the refusal is (e.g. `query_write`: a write sent to the query mode), for a reader
   * that words it for its own audience; absent where the code has one.
   */
  variant?: string;
  /** The values the message interpolates (e.g. `kind`, `count`), by name. */
  facts?: Readonly<Record<string, string | number>>;
}

/** How a statement touches a relation (the contract's `access`): reads are 'read', not 'select'. */
export type Access = 'read' | 'insert' | 'update' | 'delete';

export interface RelationAccess {
  name: string;
  access: Access;
}

export interface CheckedStatement {
  /** This statement's exact source text, without the separating semicolon. */
  sql: string;
  kind: Operation;
  readOnly: boolean;
  relations: RelationAccess[];
  location: { offset: number; length: number };
}

export type CheckResult = { ok: true; statements: CheckedStatement[] } | { ok: false; error: GuardViolation };

export interface CheckOptions {
  mode: Mode;
}

/** One column of a driver result. `dataTypeID` is the PostgreSQL type OID. */
export interface SessionField {
  name: string;
  dataTypeID: number;
}

export interface SessionResult {
  /** Command tag verb: SELECT, INSERT, UPDATE, DELETE, FETCH, MOVE, DECLARE, SET ... */
  command: string;
  rowCount: number | null;
  fields: SessionField[];
  /**
   * Rows as objects keyed by column name, values as the driver returned them. The shipped adapters return
   * PostgreSQL's text output (or null), which `run` converts to JSON by type OID; parsed values from other
   * drivers are accepted and normalised as well as their JavaScript form allows.
   */
  rows: Record<string, unknown>[];
}

/**
 * An open transaction on some PostgreSQL driver. The caller opens it, sets its security context,
 * and commits or rolls it back; `run` never issues BEGIN, COMMIT or ROLLBACK, and refuses with `no_transaction`
 * (nothing run) a session that is not inside a transaction block (`runInTransaction` opens one for callers
 * without their own). (A caller that wants its BEGIN
 * and COMMIT in the guard's round trips hands them to `run` as a prelude and epilogue: RunOptions.around.)
 */
export interface SqlSession {
  /** Runs one statement (simple protocol, no parameters). Values should be PostgreSQL's text output. */
  query(text: string): Promise<SessionResult>;
  /**
   * Optional: runs several semicolon-separated statements in one round trip (simple-query protocol) and
   * returns one result per statement, in order. When present, `run` sends each checked statement together
   * with its wrapper (timeout, cursor, row counting) in a single round trip.
   *
   * `info.last` is true on the batch that carries the request's last statement: nothing of the submitted
   * SQL runs after it.
   */
  queryBatch?(text: string, info?: BatchInfo): Promise<SessionResult[]>;
  /** Which engine answers; decides how the deadline is enforced. */
  readonly engine?: 'postgres' | 'pglite';
  /**
   * The database connection (or database) behind the session: `run` verifies its dialect against the database once
   * per such object and keeps the answer. The shipped adapters set it (the pg client, the PGlite instance or worker
   * host); without it the session object itself is the key.
   */
  readonly database?: object;
  /**
   * Interrupt the statement in flight (called when the deadline passes). For PostgreSQL this cancels
   * the backend's query; for PGlite in a worker thread it terminates the worker. After a cancel the
   * caller must treat the transaction as failed and roll it back (or discard it).
   */
  cancel?(): Promise<void>;
}

/**
 * The caller's own statements in the round trips of `run` (README, "Prelude and epilogue"): BEGIN and a context in
 * front of the first statement, COMMIT behind the last, each in the same round trip as the guard's batch. `run`
 * sends them; they stay the caller's (`run` issues no BEGIN, COMMIT or ROLLBACK of its own).
 */
export interface PreludeEpilogue {
  /**
   * The statements to send in front of the first batch, in its round trip (one result each). `settingsCheck` is a
   * select-list expression that fails unless the session has the settings `run` needs, `pinnedOutputSettings`
   * included (given at connection start, or with SET LOCAL in this prelude, before the check): one of the
   * statements must evaluate it, as a role allowed to call `current_setting` (`run` throws a TypeError, sending
   * nothing, when none contains it). `run` then neither sets the output settings nor checks them itself.
   */
  prelude?(settingsCheck: string): readonly string[];
  /**
   * The statements to send behind the batch of the request's last statement, in its round trip (one result each).
   * They end the transaction (COMMIT or ROLLBACK), so `run` does not set `statement_timeout` back. Only a catalog
   * lookup of unknown type OIDs can follow them, in a query of its own.
   */
  epilogue?: readonly string[];
  /** Receives the results of the prelude, then of the epilogue, as their round trips answer. */
  answered?(part: 'prelude' | 'epilogue', results: readonly SessionResult[]): void;
}

/** What `run` tells a session about a batch it sends. */
export interface BatchInfo {
  /** No statement of the submitted SQL follows this batch. */
  last: boolean;
}

export interface RunOptions {
  mode: Mode;
  signal?: AbortSignal;
  /**
   * When the request arrived, in epoch milliseconds (`Date.now()` then); default: when `run` is called. The
   * deadline (`limits.deadlineMs`) counts from here, so time a request spent queued counts against it; a run
   * that starts past its deadline fails with `deadline_exceeded` without sending anything.
   */
  startedAt?: number;
  /**
   * The result of this guard's own `check(sql, { mode })` for the same text and mode, so that `run` does
   * not parse the text again. Anything else (a result of another guard, of other text or mode, or an
   * object that `check` did not return) is ignored and the text is checked again.
   */
  checked?: CheckResult;
  /** The caller's statements around the guard's, in the same round trips (see PreludeEpilogue). */
  around?: PreludeEpilogue;
  /**
   * Schemas whose tables the database writes beside a statement for its own bookkeeping (an audit trail kept by
   * triggers, say): rows written there do not count toward `maxAffectedRows`. The session's role must not be
   * able to write them itself. Unquoted lower-case identifiers.
   */
  bookkeepingSchemas?: readonly string[];
}

export interface StatementResult {
  index: number;
  command: 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  rowCount: number;
  returnedRowCount: number;
  totalRowCount: number;
  truncated: boolean;
}

export interface RunResult {
  statements: StatementResult[];
}

export interface GuardOptions {
  dialect?: Dialect;
  limits?: Partial<Limits>;
  /** How `checkAsync` checks long texts off the main thread. */
  checkPool?: {
    /** Texts of at least this many characters go to the pool; default 4,000. Shorter ones are checked inline. */
    minLength?: number;
    /** Worker threads, each with its own parser; default 1. Started on the first long text. */
    threads?: number;
    /** Long texts that may wait for a thread; default 64. Beyond, `checkAsync` rejects with GuardBusyError. */
    maxQueue?: number;
  };
}

export interface Guard {
  readonly dialect: Dialect;
  readonly limits: Limits;
  /** Synchronous, pure, never throws. */
  check(sql: string, options: CheckOptions): CheckResult;
  /**
   * The same result as `check`, without blocking the event loop on long texts: a text of at least
   * `checkPool.minLength` characters is checked in a worker thread. Its result is this guard's own, so `run`
   * takes it as `checked`. Rejects only with GuardBusyError, when the pool's queue is full (nothing was checked).
   */
  checkAsync(sql: string, options: CheckOptions): Promise<CheckResult>;
  /** Stops the check pool's threads, if `checkAsync` started any. `check` and `run` keep working. */
  close(): Promise<void>;
  /**
   * Checks, then runs inside the caller's open transaction within the limits. Throws GuardRunError or GuardCheckError.
   * The first run on a database connection verifies the dialect against it (dialect_drift when they differ).
   */
  run(session: SqlSession, sql: string, options: RunOptions): Promise<RunResult>;
}
