import { type PgSession, pgOutputSettingsOption, pgSession } from '@expense/sql-guard/pg';
import pg from 'pg';
import { cancelRequest } from './cancel.js';
import { isConnectionFailure } from './connection-failure.js';
import {
  type BatchSession,
  type Connection,
  DATE_OID,
  type Engine,
  type ExclusiveOptions,
  RolledBackError,
  type StorageLogger,
  type TransactionSpec,
} from './engine.js';
import { DatabaseUnavailableError, StartDeadlineError, StorageError } from './errors.js';
import { listenOnPostgres } from './listen.js';

export interface PostgresOptions {
  /** Where transactions go: the server, or a transaction-mode pooler in front of it (then set `pooled`). */
  connectionString: string;
  /** A direct connection for what needs a session of its own (LISTEN); default connectionString. */
  directConnectionString?: string;
  /**
   * connectionString is a transaction-mode pooler: nothing may rely on session state, not even settings
   * given at connection start (the guard then sets its output formats in each transaction). Default: a direct
   * URL was given and differs from connectionString.
   */
  pooled?: boolean;
  /** Connections for user SQL; default 10. */
  maxConnections?: number;
  /**
   * Connections for the server's own work (key checks, sign-in, /me, workspaces, idempotency records), so that
   * it never waits behind user SQL; default 4.
   */
  internalConnections?: number;
  logger?: StorageLogger;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_INTERNAL_POOL_SIZE = 4;

/** Owner queries: pg's parsers, except date stays 'YYYY-MM-DD' (pg would build a local-midnight Date). */
const ownerTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === DATE_OID
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

type PgResult = pg.QueryResult<Record<string, unknown>>;
const lastResult = (result: PgResult | PgResult[]): PgResult | undefined =>
  Array.isArray(result) ? result[result.length - 1] : result;

export async function openPostgres(options: PostgresOptions): Promise<Engine> {
  const direct = options.directConnectionString ?? options.connectionString;
  const pooled = options.pooled ?? direct !== options.connectionString;
  const newPool = (max: number, applicationName: string) =>
    new pg.Pool({
      connectionString: options.connectionString,
      max,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: applicationName,
      types: ownerTypes,
      // Direct: session settings from the start of every connection (the PostgreSQL defaults, pinned against
      // a different postgresql.conf). The guard lexes user SQL with standard_conforming_strings on, and a
      // batch is lexed before any SET in it runs; the output formats are the guard's, so it verifies them in
      // each first batch instead of setting them per transaction. Owner queries parse the same defaults.
      // Through a transaction-mode pooler a startup option would reach only some server sessions (PgBouncer
      // refuses it): each user transaction sets the output formats with SET LOCAL (transactions.ts).
      ...(pooled ? {} : { options: `-c standard_conforming_strings=on ${pgOutputSettingsOption}` }),
    });
  // User SQL and the server's own work never share a connection: ten slow statements cannot hold up a key
  // check, a sign-in or /me.
  const userPool = newPool(options.maxConnections ?? DEFAULT_POOL_SIZE, 'expense-server-sql');
  const internalPool = newPool(options.internalConnections ?? DEFAULT_INTERNAL_POOL_SIZE, 'expense-server');
  // One guard session per pooled connection, so that the session's caches (type names) live as long as it.
  const sessions = new WeakMap<pg.PoolClient, PgSession & BatchSession>();
  const sessionOf = (client: pg.PoolClient) => {
    let session = sessions.get(client);
    if (!session) {
      session = pgSession(client) as PgSession & BatchSession;
      // The deadline's cancel is a protocol cancel request on a connection of its own (the pool may be busy
      // exactly then); a pooler forwards it to the server session the client is on at that moment.
      session.cancel = () => cancelRequest(client, options.logger);
      sessions.set(client, session);
    }
    return session;
  };
  // An idle client losing its connection must not crash the process; the pool replaces it.
  for (const pool of [userPool, internalPool]) {
    pool.on('error', (error) =>
      options.logger?.warn({ err: { message: error.message } }, 'idle database connection lost'),
    );
  }

  const connect = async (pool: pg.Pool): Promise<pg.PoolClient> => {
    try {
      return await pool.connect();
    } catch (error) {
      throw new DatabaseUnavailableError(undefined, { cause: error });
    }
  };

  /**
   * A pooled client by `startBy` (epoch ms) at the latest, and before `signal` aborts: the request's deadline
   * bounds the wait, not the pool's connect timeout. A client that arrives after the caller gave up goes straight
   * back to the pool, unused.
   */
  const connectBy = (pool: pg.Pool, startBy?: number, signal?: AbortSignal): Promise<pg.PoolClient> => {
    if (startBy === undefined && signal === undefined) return connect(pool);
    if (signal?.aborted || (startBy !== undefined && startBy <= Date.now())) {
      return Promise.reject(new StartDeadlineError());
    }
    return new Promise((resolve, reject) => {
      let waiting = true;
      const giveUp = () => {
        if (!waiting) return;
        waiting = false;
        clearTimeout(timer);
        reject(new StartDeadlineError());
      };
      const timer = startBy === undefined ? undefined : setTimeout(giveUp, startBy - Date.now());
      signal?.addEventListener('abort', giveUp, { once: true });
      connect(pool).then(
        (client) => {
          signal?.removeEventListener('abort', giveUp);
          if (waiting) {
            waiting = false;
            clearTimeout(timer);
            resolve(client);
          } else client.release();
        },
        (error: unknown) => {
          signal?.removeEventListener('abort', giveUp);
          if (!waiting) return;
          waiting = false;
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };

  /**
   * A pooled client for one transaction: `tracked` remembers a lost connection (an error event, or a
   * connection error from a query), and `release` destroys such a client instead of pooling it again.
   */
  const checkout = async (pool: pg.Pool, by?: Pick<ExclusiveOptions, 'startBy' | 'signal'>) => {
    const client = await connectBy(pool, by?.startBy, by?.signal);
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    return {
      client,
      isBroken: () => broken !== undefined,
      tracked: async <R>(work: Promise<R>): Promise<R> => {
        try {
          return await work;
        } catch (error) {
          if (isConnectionFailure(error)) broken = error as Error;
          throw error;
        }
      },
      release: () => {
        client.off('error', onError);
        client.release(broken ?? false);
      },
    };
  };

  const transaction = async <T>(
    spec: TransactionSpec,
    body: (connection: Connection) => Promise<T>,
  ): Promise<T> => {
    const { client, tracked, isBroken, release } = await checkout(internalPool);
    const rollback = () => tracked(client.query('ROLLBACK')).catch(() => undefined);
    const connection: Connection = {
      async query<R>(text: string, params?: unknown[]) {
        const result = lastResult(
          await tracked(client.query(text, params) as Promise<PgResult | PgResult[]>),
        );
        return { rows: (result?.rows ?? []) as R[], rowCount: result?.rowCount ?? 0 };
      },
    };
    try {
      await tracked(client.query(spec.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'));
      let result: T;
      try {
        result = await body(connection);
      } catch (error) {
        await rollback();
        throw error;
      }
      if (spec.rollback) {
        await rollback();
        return result;
      }
      const commit = await tracked(client.query('COMMIT'));
      if (commit.command === 'ROLLBACK') throw new RolledBackError('COMMIT answered ROLLBACK.');
      return result;
    } catch (error) {
      if (!isBroken()) await rollback();
      throw error;
    } finally {
      release();
    }
  };

  const exclusive = async <T>(
    body: (session: BatchSession) => Promise<T>,
    options?: ExclusiveOptions,
  ): Promise<T> => {
    const { client, tracked, isBroken, release } = await checkout(userPool, options);
    const raw = sessionOf(client);
    const session: BatchSession & PgSession = {
      engine: 'postgres',
      database: client, // the guard verifies its dialect once per connection
      query: (text) => tracked(raw.query(text)),
      queryBatch: (text) => tracked(raw.queryBatch(text)),
      ...(raw.cancel && { cancel: raw.cancel }),
      ...(pooled && { setsOutputSettingsPerTransaction: true }),
    };
    try {
      return await body(session);
    } catch (error) {
      if (!isBroken()) await tracked(client.query('ROLLBACK')).catch(() => undefined);
      throw error;
    } finally {
      release();
    }
  };

  const query = async <R>(text: string, params?: unknown[]) => {
    const client = await connect(internalPool);
    let broken: Error | undefined;
    try {
      const result = lastResult((await client.query(text, params)) as PgResult | PgResult[]);
      return { rows: (result?.rows ?? []) as R[], rowCount: result?.rowCount ?? 0 };
    } catch (error) {
      if (isConnectionFailure(error)) broken = error as Error;
      throw error;
    } finally {
      client.release(broken ?? false);
    }
  };

  try {
    const version = await query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num']);
    const number = Number(version.rows[0]?.v);
    if (!(number >= 150000)) {
      throw new StorageError(
        'unsupported_database_version',
        `PostgreSQL 15 or newer is required (found ${number}).`,
      );
    }
  } catch (error) {
    await Promise.all([userPool.end(), internalPool.end()]).catch(() => {});
    throw error;
  }

  return {
    name: 'postgres',
    query,
    transaction,
    exclusive,
    listen: (channel, handlers) => listenOnPostgres(direct, channel, handlers, options.logger),
    isConnectionError: isConnectionFailure,
    close: async () => {
      await Promise.all([userPool.end(), internalPool.end()]);
    },
  };
}
