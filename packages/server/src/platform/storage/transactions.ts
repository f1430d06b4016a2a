import { randomBytes } from 'node:crypto';
import { pinnedOutputSettings, type SessionResult, type SqlSession } from '@expense/sql-guard';
import type { Database, Queryable, UserConnection, UserContext, UserScope } from './database.js';
import {
  type BatchSession,
  type Connection,
  type Engine,
  type ListenHandlers,
  RolledBackError,
  type TransactionSpec,
} from './engine.js';
import {
  DatabaseClosedError,
  DatabaseUnavailableError,
  InvalidContextError,
  isLockNotAvailable,
  LockTimeoutError,
  MutationOutcomeUnknownError,
  StorageError,
  WorkspaceNotResolvedError,
} from './errors.js';
import { INTERNAL_SCHEMA } from './names.js';

/**
 * The statements that open a user-SQL transaction under its context (migrations 0006, 0008, 0016, 0017). Who
 * sends them, and in which round trip, is decided by the caller: `Database.userTransaction` in a round trip of
 * their own, the SQL endpoints' pipeline (src/features/sql/pipeline.ts) in front of the guard's first batch.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkedUuid(value: unknown, field: 'userId' | 'workspaceId' | 'connectionId'): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new InvalidContextError(field);
  return value.toLowerCase();
}

/**
 * Text of the error `open_user_context` raises when a workspace lookup finds nothing. The random part keeps a
 * user statement's own error from looking like it (the text is never shown to anyone).
 */
const NOT_RESOLVED = `expense_workspace_not_resolved_${randomBytes(8).toString('hex')}`;

/** True for the error of a context whose workspace lookup found nothing (raw, or as the guard reports it). */
export function isWorkspaceNotResolved(error: unknown): boolean {
  return error instanceof Error && error.message.includes(NOT_RESOLVED);
}

/** BEGIN, READ ONLY for a read. */
export const beginStatement = (ctx: UserContext): string => (ctx.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');

/**
 * The guard's output formats for one transaction, for a connection that cannot keep them as session settings
 * (behind a transaction-mode pooler): `set_config(..., true)` (= SET LOCAL) as select-list items of the context
 * SELECT, in front of the guard's settings check, which then verifies them. One statement instead of three SET
 * LOCAL statements in front of it (three fewer results to parse per request).
 */
const OUTPUT_SETTINGS_ITEMS: string = Object.entries(pinnedOutputSettings)
  .map(([name, value], i) => {
    if (!/^[A-Za-z_]+$/.test(name) || !/^[A-Za-z0-9_]+$/.test(value))
      throw new Error('output settings: refusing an unexpected value');
    return `pg_catalog.set_config('${name}', '${value}', true) AS output_setting_${i}, `;
  })
  .join('');

/** A workspace given outright, one the user asked for (membership checked), or the key's saved one. */
type WorkspaceKind = 'given' | 'member' | 'saved';

function workspaceOf(ctx: UserContext): { kind: WorkspaceKind; id: string } {
  const workspace = ctx.workspaceId;
  if (typeof workspace === 'string') return { kind: 'given', id: checkedUuid(workspace, 'workspaceId') };
  return 'requested' in workspace
    ? { kind: 'member', id: checkedUuid(workspace.requested, 'workspaceId') }
    : { kind: 'saved', id: checkedUuid(workspace.savedBy, 'connectionId') };
}

/**
 * The statement that sets a user-SQL transaction's context: one call of `open_user_context` (migration 0045),
 * which finds the workspace as the owner (or raises NOT_RESOLVED, so nothing behind it runs), sets the user and
 * workspace settings, the workspace's TimeZone and search_path for the transaction, switches to the SQL role last,
 * and returns the workspace and its zone. It depends on nothing left on the connection by an earlier transaction
 * (no PREPARE), so it works the same through a transaction-mode pooler; PL/pgSQL keeps the function's plans per
 * server session. `settingsCheck` (the guard's, a select-list expression) is evaluated first, as the owner, after
 * the output settings where the connection cannot keep them (`per-transaction`). Its column: context, `<workspace id> <time zone>` (see scopeOf).
 * Throws InvalidContextError for ids that are not UUIDs.
 */
export function contextSelect(
  ctx: UserContext,
  settingsCheck?: string,
  outputSettings: 'pinned' | 'per-transaction' = 'pinned',
): string {
  const userId = checkedUuid(ctx.userId, 'userId');
  const { kind, id } = workspaceOf(ctx);
  const check = settingsCheck === undefined ? '' : `${settingsCheck} AS guard_settings, `;
  const pin = outputSettings === 'per-transaction' ? OUTPUT_SETTINGS_ITEMS : '';
  return `SELECT ${pin}${check}${changeSetup(ctx)}${INTERNAL_SCHEMA}.open_user_context('${userId}', '${id}', '${kind}', '${NOT_RESOLVED}') AS context`;
}

/**
 * `begin_change(...)` (migration 0017) as a select-list item in front of open_user_context, so it runs as the
 * owner before the role switch. The SQL text travels as an escape string literal (backslashes and quotes
 * doubled), which reads the same whatever standard_conforming_strings says.
 */
function changeSetup(ctx: UserContext): string {
  if (!ctx.change) return '';
  const connectionId = checkedUuid(ctx.change.connectionId, 'connectionId');
  if (!/^[a-z]{1,20}$/.test(ctx.change.endpoint) || ctx.change.sql.includes('\0')) {
    throw new Error('change: refusing an unexpected value');
  }
  const sql = escapeText(ctx.change.sql);
  const { group } = ctx.change;
  if (group && !UUID.test(group.id)) throw new Error('change: refusing an unexpected value');
  const grouped = group
    ? `${INTERNAL_SCHEMA}.set_change_group('${group.id.toLowerCase()}', E'${escapeText(group.label)}') AS change_group, `
    : '';
  return `${INTERNAL_SCHEMA}.begin_change('${ctx.change.endpoint}', '${connectionId}', E'${sql}') AS change_id, ${grouped}`;
}

/** Text for an escape string literal (backslashes and quotes doubled); NUL is refused by the callers. */
function escapeText(text: string): string {
  if (text.includes('\0')) throw new Error('change: refusing an unexpected value');
  return text.replace(/\\/g, '\\\\').replace(/'/g, "''");
}

/** What the context SELECT's row says: the workspace the transaction runs in, its time zone, the change opened. */
export function scopeOf(result: SessionResult | undefined): UserScope {
  const row = result?.rows[0];
  if (!row) throw new Error('The context SELECT returned no row.');
  // `<uuid> <zone>`: a uuid is 36 characters, an IANA zone name has no space.
  const context = String(row.context);
  if (context.charAt(36) !== ' ') throw new Error('The context SELECT returned an unexpected context.');
  const scope = { workspaceId: context.slice(0, 36), timeZone: context.slice(37) || 'UTC' };
  return row.change_id ? { ...scope, changeId: String(row.change_id) } : scope;
}

const SEPARATOR = ';\n';

/**
 * A user transaction for callers that send their own statements (tests, tools): BEGIN and the context in a round
 * trip of their own, then the body on the bare session, then COMMIT (or ROLLBACK). The SQL endpoints save that
 * round trip: src/features/sql/pipeline.ts sends BEGIN and the context in front of the guard's first batch instead.
 */
async function runUserTransaction<T>(
  session: BatchSession,
  ctx: UserContext,
  fn: (session: SqlSession, scope: UserScope) => Promise<T>,
  rollbackAtEnd: boolean,
): Promise<T> {
  const begin = [
    beginStatement(ctx),
    contextSelect(ctx, undefined, session.setsOutputSettingsPerTransaction ? 'per-transaction' : 'pinned'),
  ];
  let scope: UserScope;
  try {
    scope = scopeOf((await session.queryBatch(begin.join(SEPARATOR))).at(-1));
  } catch (error) {
    if (isWorkspaceNotResolved(error)) throw new WorkspaceNotResolvedError();
    throw error;
  }
  const bare: SqlSession = {
    engine: session.engine,
    query: (text) => session.query(text),
    queryBatch: (text) => session.queryBatch(text),
    ...(session.cancel && { cancel: () => session.cancel?.() ?? Promise.resolve() }),
    // The guard verifies its dialect once per database connection, not per transaction.
    ...(session.database && { database: session.database }),
  };
  const value = await fn(bare, scope);
  if (rollbackAtEnd) {
    // A dry run of a write runs the deferred checks (balanced transfers) first: it refuses what COMMIT would.
    await session.queryBatch(ctx.readOnly ? 'ROLLBACK' : `SET CONSTRAINTS ALL IMMEDIATE${SEPARATOR}ROLLBACK`);
    return value;
  }
  await commitOn(session, 'COMMIT');
  return value;
}

/** Sends the statement that ends a transaction with COMMIT; its failure is CommitFailed, a ROLLBACK answer RolledBackError. */
async function commitOn(session: BatchSession, text: string): Promise<void> {
  let tag: string | undefined;
  session.committing?.();
  try {
    tag = (await session.queryBatch(text)).at(-1)?.command;
  } catch (error) {
    throw new CommitFailed(error);
  }
  if (tag === 'ROLLBACK') throw new RolledBackError('COMMIT answered ROLLBACK.');
}

/** The COMMIT itself failed (the body had finished). */
class CommitFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('COMMIT failed.');
  }
}

function asQueryable(connection: Connection): Queryable {
  return { query: (text, params) => connection.query(text, params) };
}

/** Builds the Database on an engine: one place for context, error mapping and closing. */
export function databaseOn(engine: Engine): Database {
  let closed = false;
  const listen = engine.listen?.bind(engine);
  const dump = engine.dumpDataDir?.bind(engine);
  const turns = engine.turns?.bind(engine);

  const unavailableOr = (error: unknown): unknown =>
    !(error instanceof StorageError) && engine.isConnectionError(error)
      ? new DatabaseUnavailableError(undefined, { cause: error })
      : error;
  /** The server's own statements: also their lock_timeout (postgres.ts) as a retryable LockTimeoutError. */
  const internalError = (error: unknown): unknown =>
    isLockNotAvailable(error) ? new LockTimeoutError({ cause: error }) : unavailableOr(error);

  async function inTransaction<T>(
    spec: TransactionSpec,
    body: (connection: Connection) => Promise<T>,
  ): Promise<T> {
    if (closed) throw new DatabaseClosedError();
    let bodyDone = false;
    try {
      return await engine.transaction(spec, async (connection) => {
        const result = await body(connection);
        bodyDone = true;
        return result;
      });
    } catch (error) {
      const atCommit = bodyDone && !spec.rollback;
      if (error instanceof RolledBackError) {
        throw new StorageError('transaction_rolled_back', 'The transaction had failed and was rolled back.', {
          cause: error,
        });
      }
      if (atCommit && !(error instanceof StorageError) && engine.isConnectionError(error)) {
        // The COMMIT was sent but its answer was lost: a write may or may not have been applied.
        throw spec.readOnly
          ? new DatabaseUnavailableError(undefined, { cause: error })
          : new MutationOutcomeUnknownError({ cause: error });
      }
      throw internalError(error);
    }
  }

  /** Runs a user-SQL transaction's work, mapping what went wrong to storage errors. */
  async function userSql<T>(readOnly: boolean, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof RolledBackError) {
        throw new StorageError('transaction_rolled_back', 'The transaction had failed and was rolled back.', {
          cause: error,
        });
      }
      if (error instanceof CommitFailed) {
        if (error.cause instanceof StorageError || !engine.isConnectionError(error.cause)) throw error.cause;
        // The COMMIT was sent but its answer was lost: a write may or may not have been applied.
        throw readOnly
          ? new DatabaseUnavailableError(undefined, { cause: error.cause })
          : new MutationOutcomeUnknownError({ cause: error.cause });
      }
      throw unavailableOr(error);
    }
  }

  return {
    engine: engine.name,
    async query(text, params) {
      if (closed) throw new DatabaseClosedError();
      try {
        return await engine.query(text, params);
      } catch (error) {
        throw internalError(error);
      }
    },
    transaction(fn) {
      return inTransaction({ readOnly: false, rollback: false }, (connection) => fn(asQueryable(connection)));
    },
    async userTransaction(ctx, fn, options) {
      contextSelect(ctx); // rejects with InvalidContextError before any I/O
      if (closed) throw new DatabaseClosedError();
      const rollback = options?.rollback === true;
      return userSql(ctx.readOnly, () =>
        engine.exclusive((session) => runUserTransaction(session, ctx, fn, rollback), {
          tenant: ctx.userId,
          rollsBack: rollback,
          readOnly: ctx.readOnly,
          ...(options?.fairShareMs === undefined ? {} : { fairShareMs: options.fairShareMs }),
          ...(options?.startBy === undefined ? {} : { startBy: options.startBy }),
          ...(options?.writes ? { writes: options.writes } : {}),
        }),
      );
    },
    async userConnection(options, body) {
      if (closed) throw new DatabaseClosedError();
      const { readOnly, ...exclusive } = options;
      return userSql(readOnly, () =>
        engine.exclusive(
          (session) => {
            const connection: UserConnection = {
              session,
              outputSettings: session.setsOutputSettingsPerTransaction ? 'per-transaction' : 'pinned',
              owner: { query: (text, params) => session.ownerQuery(text, params) },
              commit: () => commitOn(session, 'COMMIT'),
            };
            return body(connection);
          },
          { ...exclusive, readOnly },
        ),
      );
    },
    ...(listen && {
      async listen(channel: string, handlers: ListenHandlers) {
        if (closed) throw new DatabaseClosedError();
        return listen(channel, handlers);
      },
    }),
    ...(dump && {
      async dumpDataDir() {
        if (closed) throw new DatabaseClosedError();
        return dump();
      },
    }),
    ...(turns && { turns }),
    async ping() {
      await this.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await engine.close();
    },
  };
}
