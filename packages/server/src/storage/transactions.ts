import { randomBytes } from 'node:crypto';
import type { SessionResult, SqlSession } from '@expense/sql-guard';
import { type SessionHints as GuardSessionHints, pinnedSettingsCheck } from '@expense/sql-guard/pg';
import type { Database, Queryable, UserContext, UserScope } from './database.js';
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
  MutationOutcomeUnknownError,
  StorageError,
  WorkspaceNotResolvedError,
} from './errors.js';
import { INTERNAL_SCHEMA, SQL_ROLE, USER_ID_SETTING, WORKSPACE_ID_SETTING } from './names.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkedUuid(value: unknown, field: 'userId' | 'workspaceId' | 'connectionId'): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new InvalidContextError(field);
  return value.toLowerCase();
}

/**
 * Text of the failing cast when a workspace lookup finds nothing. The random part keeps a user statement's own
 * error from looking like it (the text is never shown to anyone).
 */
const NOT_RESOLVED = `expense_workspace_not_resolved_${randomBytes(8).toString('hex')}`;
/** SQLSTATE 26000: EXECUTE of a statement name the connection does not have. */
const INVALID_STATEMENT_NAME = '26000';
/** Where the context SELECT (whose workspace_id column is the resolved id) is: right after BEGIN. */
const CONTEXT_RESULT = 1;

/**
 * The workspace id as an SQL text expression, evaluated as the owner before the role changes. A lookup that
 * finds nothing makes the cast fail with NOT_RESOLVED in its message, so the batch stops there: no user SQL
 * runs without a workspace. `id` and `userId` are SQL expressions: validated UUID literals, or parameters.
 */
function workspaceExpression(kind: WorkspaceKind, id: string, userId: string): string {
  if (kind === 'given') return `${id}::text`;
  // PL/pgSQL functions (migration 0006): their plans are kept, where an inline query was planned per request.
  const found =
    kind === 'member'
      ? `${INTERNAL_SCHEMA}.member_workspace(${id}, ${userId})`
      : `${INTERNAL_SCHEMA}.saved_workspace(${id}, ${userId})`;
  return `COALESCE(${found}::text, '${NOT_RESOLVED}')::uuid::text`;
}

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
 * The select list that sets a user-SQL transaction's context. set_config runs before SET ROLE because the SQL
 * role cannot execute it; set_config('role', ..., true) is SET LOCAL ROLE, evaluated last in the select list.
 */
function contextSelect(kind: WorkspaceKind, userId: string, workspaceId: string, checks: string): string {
  return `SELECT ${checks}pg_catalog.set_config('${USER_ID_SETTING}', ${userId}::text, true) AS user_id, pg_catalog.set_config('${WORKSPACE_ID_SETTING}', ${workspaceExpression(kind, workspaceId, userId)}, true) AS workspace_id, pg_catalog.set_config('search_path', 'public, pg_temp', true) AS search_path, ${INTERNAL_SCHEMA}.workspace_time_zone() AS time_zone, pg_catalog.set_config('role', '${SQL_ROLE}', true) AS role`;
}

/**
 * The statement that sets a user-SQL transaction's context, sent after BEGIN in the same round trip as the
 * first statement. There is no `SET LOCAL standard_conforming_strings` here: PostgreSQL lexes a whole message
 * before running any of it, so it would come too late for the statements behind it and only hide a wrong
 * session value from the guard's own check (the engines keep the session value on).
 */
export function userContextSetup(ctx: UserContext, checks = ''): string {
  const userId = checkedUuid(ctx.userId, 'userId');
  const { kind, id } = workspaceOf(ctx);
  return contextSelect(kind, `'${userId}'::uuid`, `'${id}'::uuid`, checks);
}

/**
 * The same statement prepared once per connection (PREPARE) and run by name: PostgreSQL then parses and plans
 * its dozen function calls once per connection instead of once per request (measured with pgbench at 10
 * clients: about 20 % more context-plus-query transactions per second).
 */
function preparedUserContext(ctx: UserContext, checks: string) {
  const userId = checkedUuid(ctx.userId, 'userId');
  const { kind, id } = workspaceOf(ctx);
  const name = `expense_user_context_${kind}${checks ? '_checked' : ''}`;
  return {
    name,
    // Built only for a connection that does not have it yet: the text is long and requests are many.
    prepare: () => `PREPARE ${name}(uuid, uuid) AS ${contextSelect(kind, '$1', '$2', checks)}`,
    execute: `EXECUTE ${name}('${userId}', '${id}')`,
  };
}

const SEPARATOR = ';\n';

/** Shifts a PostgreSQL error position (1-based characters of the text sent) back into the session's text. */
function withoutPrefix(error: unknown, prefixChars: number): unknown {
  const e = error as { position?: unknown } | null;
  if (e && typeof e === 'object' && e.position !== undefined) {
    const position = Number(e.position) - prefixChars;
    if (position >= 1) e.position = String(position);
    else delete e.position;
  }
  return error;
}

/**
 * A user transaction on one exclusive connection: BEGIN and the context travel in front of the session's first
 * statement; a read-only transaction's COMMIT travels behind the batch `run` marks as its last.
 */
async function runUserTransaction<T>(
  session: BatchSession,
  ctx: UserContext,
  fn: (session: SqlSession, scope: UserScope) => Promise<T>,
  rollbackAtEnd: boolean,
): Promise<T> {
  // With the output settings pinned per connection (postgres.ts), the guard's check of the session settings
  // travels in the context SELECT, in front of the first batch, and the guard skips its own.
  const pinned = (session as GuardSessionHints).outputSettingsPinned === true;
  const checks = pinned ? `${pinnedSettingsCheck} AS guard_settings, ` : '';
  let setup: string;
  if (session.prepared) {
    const context = preparedUserContext(ctx, checks);
    if (!session.prepared.has(context.name)) {
      await session.query(context.prepare());
      session.prepared.add(context.name);
    }
    setup = context.execute;
  } else {
    setup = userContextSetup(ctx, checks);
  }
  let state = 'idle' as 'idle' | 'open' | 'committed';
  let workspaceId = typeof ctx.workspaceId === 'string' ? ctx.workspaceId.toLowerCase() : undefined;
  let timeZone: string | undefined;
  const begin = [ctx.readOnly ? 'BEGIN READ ONLY' : 'BEGIN', setup];
  const commitsEarly = ctx.readOnly && !rollbackAtEnd;

  const send = async (text: string, last: boolean): Promise<SessionResult[]> => {
    // After an early COMMIT only a catalog lookup of `run` can follow; it gets a transaction of its own.
    const prefix = state === 'open' ? [] : begin;
    const commit = commitsEarly && (last || state === 'committed');
    const parts = [...prefix, text];
    if (commit) parts.push('COMMIT');
    const prefixChars = prefix.length === 0 ? 0 : prefix.join(SEPARATOR).length + SEPARATOR.length;
    let results: SessionResult[];
    try {
      results = await session.queryBatch(parts.join(SEPARATOR));
    } catch (error) {
      if (prefix.length > 0) {
        state = 'open'; // BEGIN ran; whatever failed after it left the transaction to roll back
        if (session.prepared && (error as { code?: unknown } | null)?.code === INVALID_STATEMENT_NAME) {
          // The connection lost the prepared context (nothing in the dialect can drop it): prepare it again
          // next time; this request ran no user SQL and may be retried.
          session.prepared.clear();
          throw new DatabaseUnavailableError(undefined, { cause: error });
        }
        if (
          typeof ctx.workspaceId !== 'string' &&
          error instanceof Error &&
          error.message.includes(NOT_RESOLVED)
        ) {
          throw new WorkspaceNotResolvedError();
        }
      }
      throw withoutPrefix(error, prefixChars);
    }
    if (prefix.length > 0) {
      workspaceId = String(results[CONTEXT_RESULT]?.rows[0]?.workspace_id);
      timeZone = String(results[CONTEXT_RESULT]?.rows[0]?.time_zone ?? 'UTC');
    }
    if (commit) {
      const tag = results.at(-1)?.command;
      if (tag === 'ROLLBACK') throw new RolledBackError('COMMIT answered ROLLBACK.');
      state = 'committed';
      return results.slice(prefix.length, -1);
    }
    state = 'open';
    return results.slice(prefix.length);
  };

  const userSession: SqlSession = {
    engine: session.engine,
    query: async (text) => {
      const results = await send(text, false);
      const result = results.at(-1);
      if (!result) throw new Error('The database returned no result.');
      return result;
    },
    queryBatch: (text, info) => send(text, info?.last === true),
  };
  if (session.cancel) userSession.cancel = () => session.cancel?.() ?? Promise.resolve();
  // What `run` may skip: the output settings when the engine pins them per connection (postgres.ts), and the
  // reset of statement_timeout when COMMIT travels behind the last batch.
  const hints = userSession as GuardSessionHints;
  if (pinned) {
    hints.outputSettingsPinned = true;
    hints.settingsCheckedInFirstRoundTrip = true;
  }
  if (commitsEarly) hints.endsTransactionAfterLastBatch = true;
  const scope: UserScope = {
    get workspaceId() {
      if (workspaceId === undefined) throw new Error('The workspace is known after the first statement.');
      return workspaceId;
    },
    get timeZone() {
      if (timeZone === undefined) throw new Error('The time zone is known after the first statement.');
      return timeZone;
    },
  };

  const value = await fn(userSession, scope);
  if (state !== 'open') return value;
  if (rollbackAtEnd) {
    // A dry run of a write runs the deferred checks (balanced transfers) first: it refuses what COMMIT would.
    await session.queryBatch(ctx.readOnly ? 'ROLLBACK' : `SET CONSTRAINTS ALL IMMEDIATE${SEPARATOR}ROLLBACK`);
    return value;
  }
  let tag: string;
  try {
    tag = (await session.query('COMMIT')).command;
  } catch (error) {
    throw new CommitFailed(error);
  }
  if (tag === 'ROLLBACK') throw new RolledBackError('COMMIT answered ROLLBACK.');
  return value;
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

  const unavailableOr = (error: unknown): unknown =>
    !(error instanceof StorageError) && engine.isConnectionError(error)
      ? new DatabaseUnavailableError(undefined, { cause: error })
      : error;

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
        throw unavailableOr(error);
      }
    },
    transaction(fn) {
      return inTransaction({ readOnly: false, rollback: false }, (connection) => fn(asQueryable(connection)));
    },
    async userTransaction(ctx, fn, options) {
      userContextSetup(ctx); // rejects with InvalidContextError before any I/O
      if (closed) throw new DatabaseClosedError();
      try {
        return await engine.exclusive((session) =>
          runUserTransaction(session, ctx, fn, options?.rollback === true),
        );
      } catch (error) {
        if (error instanceof RolledBackError) {
          throw new StorageError(
            'transaction_rolled_back',
            'The transaction had failed and was rolled back.',
            {
              cause: error,
            },
          );
        }
        if (error instanceof CommitFailed) {
          if (error.cause instanceof StorageError || !engine.isConnectionError(error.cause))
            throw error.cause;
          // The COMMIT was sent but its answer was lost: a write may or may not have been applied.
          throw ctx.readOnly
            ? new DatabaseUnavailableError(undefined, { cause: error.cause })
            : new MutationOutcomeUnknownError({ cause: error.cause });
        }
        throw unavailableOr(error);
      }
    },
    ...(listen && {
      async listen(channel: string, handlers: ListenHandlers) {
        if (closed) throw new DatabaseClosedError();
        return listen(channel, handlers);
      },
    }),
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
