import { type PgSession, pgOutputSettingsOption, pgSession } from '@expense/sql-guard/pg';
import pg from 'pg';
import {
  type BatchSession,
  type Connection,
  DATE_OID,
  type Engine,
  RolledBackError,
  type StorageLogger,
  type TransactionSpec,
} from './engine.js';
import { DatabaseUnavailableError, StorageError } from './errors.js';
import { listenOnPostgres } from './listen.js';

export interface PostgresOptions {
  connectionString: string;
  /** Pool size; default 10. */
  maxConnections?: number;
  logger?: StorageLogger;
}

const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|client was closed|cannot use a pool after calling end/i;

export function isPgConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (code.startsWith('08') || CONNECTION_SQLSTATES.has(code) || CONNECTION_ERRNOS.has(code))
  )
    return true;
  return CONNECTION_MESSAGES.test(error.message);
}

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
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'expense-server',
    types: ownerTypes,
    // Session settings from the start of every connection (the PostgreSQL defaults, pinned against a
    // different postgresql.conf). The guard lexes user SQL with standard_conforming_strings on, and a batch
    // is lexed before any SET in it runs; the output formats are the guard's, so it verifies them in each
    // first batch instead of setting them per transaction. Owner queries parse the same defaults.
    options: `-c standard_conforming_strings=on ${pgOutputSettingsOption}`,
  });
  // One guard session per pooled connection, so the session's caches (type names) and the names of the
  // statements prepared on the connection live as long as it.
  type ClientSession = PgSession & BatchSession & { prepared: Set<string> };
  const sessions = new WeakMap<pg.PoolClient, ClientSession>();
  const sessionOf = (client: pg.PoolClient) => {
    let session = sessions.get(client);
    if (!session) {
      // The deadline's cancel goes over a connection of its own: the pool may be busy exactly then.
      session = Object.assign(
        pgSession(client, { cancelWith: options.connectionString, outputSettingsPinned: true }),
        { prepared: new Set<string>() },
      ) as ClientSession;
      sessions.set(client, session);
    }
    return session;
  };
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) =>
    options.logger?.warn({ err: { message: error.message } }, 'idle database connection lost'),
  );

  const connect = async (): Promise<pg.PoolClient> => {
    try {
      return await pool.connect();
    } catch (error) {
      throw new DatabaseUnavailableError(undefined, { cause: error });
    }
  };

  /**
   * A pooled client for one transaction: `tracked` remembers a lost connection (an error event, or a
   * connection error from a query), and `release` destroys such a client instead of pooling it again.
   */
  const checkout = async () => {
    const client = await connect();
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
          if (isPgConnectionError(error)) broken = error as Error;
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
    const { client, tracked, isBroken, release } = await checkout();
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

  const exclusive = async <T>(body: (session: BatchSession) => Promise<T>): Promise<T> => {
    const { client, tracked, isBroken, release } = await checkout();
    const raw = sessionOf(client);
    const session: BatchSession & PgSession = {
      engine: 'postgres',
      query: (text) => tracked(raw.query(text)),
      queryBatch: (text) => tracked(raw.queryBatch(text)),
      prepared: raw.prepared,
      cancel: raw.cancel,
      capabilities: { outputSettingsPinned: true },
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
    const client = await connect();
    let broken: Error | undefined;
    try {
      const result = lastResult((await client.query(text, params)) as PgResult | PgResult[]);
      return { rows: (result?.rows ?? []) as R[], rowCount: result?.rowCount ?? 0 };
    } catch (error) {
      if (isPgConnectionError(error)) broken = error as Error;
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
    await pool.end().catch(() => {});
    throw error;
  }

  return {
    name: 'postgres',
    query,
    transaction,
    exclusive,
    listen: (channel, handlers) =>
      listenOnPostgres(options.connectionString, channel, handlers, options.logger),
    isConnectionError: isPgConnectionError,
    close: () => pool.end(),
  };
}
