import { randomBytes } from 'node:crypto';
import { pinnedOutputSettings, type SessionResult, type SqlSession } from '@expense/sql-guard';
import { pinnedSettingsCheck } from '@expense/sql-guard/pg';
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
import { INTERNAL_SCHEMA } from './names.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkedUuid(value: unknown, field: 'userId' | 'workspaceId' | 'connectionId'): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new InvalidContextError(field);
  return value.toLowerCase();
}

/**
 * Text of the error the context function raises when a workspace lookup finds nothing. The random part keeps a
 * user statement's own error from looking like it (the text is never shown to anyone).
 */
const NOT_RESOLVED = `expense_workspace_not_resolved_${randomBytes(8).toString('hex')}`;
/**
 * The guard's output formats for one transaction, for a connection that cannot keep them as session settings
 * (behind a transaction-mode pooler): sent in front of the context, whose settings check then verifies them.
 */
const OUTPUT_SETTINGS_LOCAL = Object.entries(pinnedOutputSettings).map(
  ([name, value]) => `SET LOCAL ${name} = ${value}`,
);

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
 * The statement that sets a user-SQL transaction's context, sent after BEGIN in the same round trip as the
 * first statement: one call of `begin_user_context` (migration 0008), which finds the workspace as the owner,
 * sets the user and workspace settings and search_path for the transaction, and switches to the SQL role last.
 * It depends on nothing left on the connection by an earlier transaction (no PREPARE), so it works the same
 * through a transaction-mode pooler; PL/pgSQL keeps the function's plans per server session. There is no
 * `SET LOCAL standard_conforming_strings` here: PostgreSQL lexes a whole message before running any of it, so
 * it would come too late for the statements behind it and only hide a wrong session value from the guard's
 * own check (the engines keep the session value on). `checks` are select-list items evaluated first.
 */
export function userContextSetup(ctx: UserContext, checks = ''): string {
  const userId = checkedUuid(ctx.userId, 'userId');
  const { kind, id } = workspaceOf(ctx);
  return `SELECT ${checks}${changeSetup(ctx)}${INTERNAL_SCHEMA}.begin_user_context('${userId}', '${id}', '${kind}', '${NOT_RESOLVED}') AS workspace_id, ${INTERNAL_SCHEMA}.workspace_time_zone() AS time_zone`;
}

/**
 * `begin_change(...)` (migration 0017) as a select-list item in front of begin_user_context, so it runs as the
 * owner before the role switch. The SQL text travels as an escape string literal (backslashes and quotes
 * doubled), which reads the same whatever standard_conforming_strings says.
 */
function changeSetup(ctx: UserContext): string {
  if (!ctx.change) return '';
  const connectionId = checkedUuid(ctx.change.connectionId, 'connectionId');
  if (!/^[a-z]{1,20}$/.test(ctx.change.endpoint) || ctx.change.sql.includes('\0')) {
    throw new Error('change: refusing an unexpected value');
  }
  const sql = ctx.change.sql.replace(/\\/g, '\\\\').replace(/'/g, "''");
  return `${INTERNAL_SCHEMA}.begin_change('${ctx.change.endpoint}', '${connectionId}', E'${sql}') AS change_id, `;
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
  // With the output settings pinned per connection (postgres.ts), or set for the transaction right here (a
  // pooled connection), the guard's check of the settings travels in the context SELECT, in front of the first
  // batch and evaluated as the owner, and the guard skips its own.
  const perTransaction = session.setsOutputSettingsPerTransaction === true;
  const pinned = perTransaction || session.capabilities?.outputSettingsPinned === true;
  const checks = pinned ? `${pinnedSettingsCheck} AS guard_settings, ` : '';
  const setup = userContextSetup(ctx, checks);
  let state = 'idle' as 'idle' | 'open' | 'committed';
  let workspaceId = typeof ctx.workspaceId === 'string' ? ctx.workspaceId.toLowerCase() : undefined;
  let timeZone: string | undefined;
  const begin = [
    ctx.readOnly ? 'BEGIN READ ONLY' : 'BEGIN',
    ...(perTransaction ? OUTPUT_SETTINGS_LOCAL : []),
    setup,
  ];
  /** Where the context SELECT (whose workspace_id column is the resolved id) is: the last of `begin`. */
  const contextResult = begin.length - 1;
  const commitsEarly = ctx.readOnly && !rollbackAtEnd;

  const send = async (text: string, last: boolean): Promise<SessionResult[]> => {
    // After an early COMMIT only a catalog lookup of `run` can follow; it gets a transaction of its own.
    const prefix = state === 'open' ? [] : begin;
    const commit = commitsEarly && (last || state === 'committed');
    const parts = [...prefix, text];
    if (commit) parts.push('COMMIT');
    let results: SessionResult[];
    try {
      results = await session.queryBatch(parts.join(SEPARATOR));
    } catch (error) {
      // PostgreSQL counts characters (code points): the prefix may hold the SQL text (changeSetup).
      const prefixChars = prefix.length === 0 ? 0 : [...prefix.join(SEPARATOR)].length + SEPARATOR.length;
      if (prefix.length > 0) {
        state = 'open'; // BEGIN ran; whatever failed after it left the transaction to roll back
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
      workspaceId = String(results[contextResult]?.rows[0]?.workspace_id);
      timeZone = String(results[contextResult]?.rows[0]?.time_zone ?? 'UTC');
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
  // reset of statement_timeout when COMMIT travels behind the last batch. The change history's rows, written by
  // triggers beside each write, are not the statement's own (they do not count toward the affected-row cap).
  userSession.capabilities = {
    bookkeepingSchemas: [INTERNAL_SCHEMA],
    ...(pinned ? { outputSettingsPinned: true, settingsCheckedInFirstRoundTrip: true } : {}),
    ...(commitsEarly ? { endsTransactionAfterLastBatch: true } : {}),
  };
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
        return await engine.exclusive(
          (session) => runUserTransaction(session, ctx, fn, options?.rollback === true),
          {
            tenant: ctx.userId,
            rollsBack: options?.rollback === true,
            readOnly: ctx.readOnly,
            ...(options?.fairShareMs === undefined ? {} : { fairShareMs: options.fairShareMs }),
            ...(options?.startBy === undefined ? {} : { startBy: options.startBy }),
            ...(options?.writes ? { writes: options.writes } : {}),
          },
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
