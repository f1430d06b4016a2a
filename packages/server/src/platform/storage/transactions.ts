import type { SqlSession } from '@expense/sql-guard';
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
  isLockNotAvailable,
  LockTimeoutError,
  MutationOutcomeUnknownError,
  StorageError,
  WorkspaceNotResolvedError,
} from './errors.js';
import { beginStatement, contextSelect, isWorkspaceNotResolved, scopeOf } from './user-context.js';

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
