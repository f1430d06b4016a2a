import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
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
  /**
   * How long a user statement may run on after its cancel (deadline, client gone) before its server process is
   * ended with pg_terminate_backend over the direct connection, and its pooled connection discarded; default 1000.
   * A cancel can be lost or swallowed (a function that traps query_canceled). Both take effect at the process's
   * next check for interrupts: the planner folding a huge expression checks for neither, and runs on until done
   * (the connection stays held meanwhile); only the guard's expression bound keeps such statements out.
   */
  terminateAfterMs?: number;
  /**
   * How long a user statement's server process may run on after its termination before its connection is closed
   * from this side; default 300000 (5 minutes). Until its server process has ended (its connection then closes,
   * and the statement settles) the request keeps its connection, and with it its in-flight place: one user cannot
   * have more server processes busy than its in-flight limit, even with work that checks for no interrupt. This
   * bound only keeps a process that never ends from holding them forever.
   */
  abandonAfterMs?: number;
  /**
   * lock_timeout of the server's own transactions (key checks, sign-in, /me, invitations...), in ms; default 2000.
   * They never wait long behind a lock a user's slow write holds: past it they fail with LockTimeoutError.
   */
  internalLockTimeoutMs?: number;
  logger?: StorageLogger;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_INTERNAL_POOL_SIZE = 4;
export const DEFAULT_TERMINATE_AFTER_MS = 1_000;
export const DEFAULT_ABANDON_AFTER_MS = 300_000;
export const DEFAULT_INTERNAL_LOCK_TIMEOUT_MS = 2_000;

/**
 * A pg client whose application_name is its own (`<base>-<12 hex>`): the server process serving it can be found
 * in pg_stat_activity, also behind a transaction-mode pooler (PgBouncer passes application_name on to the
 * server session it lends the client), where the client's process id is the pooler's.
 */
function uniquelyNamed(base: string): new () => pg.ClientBase {
  return class NamedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, application_name: `${base}-${randomBytes(6).toString('hex')}` });
    }
  } as unknown as new () => pg.ClientBase;
}

const applicationNameOf = (client: pg.ClientBase): string | undefined =>
  (client as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters
    ?.application_name;

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
  const terminateAfterMs = options.terminateAfterMs ?? DEFAULT_TERMINATE_AFTER_MS;
  const abandonAfterMs = options.abandonAfterMs ?? DEFAULT_ABANDON_AFTER_MS;
  const lockTimeoutMs = options.internalLockTimeoutMs ?? DEFAULT_INTERNAL_LOCK_TIMEOUT_MS;
  const newPool = (
    max: number,
    applicationName: string,
    extra: { named?: boolean; startupOptions?: string } = {},
  ) =>
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
      ...(pooled
        ? {}
        : {
            options: `-c standard_conforming_strings=on ${pgOutputSettingsOption}${extra.startupOptions ?? ''}`,
          }),
      ...(extra.named ? { Client: uniquelyNamed(applicationName) } : {}),
    });
  // User SQL and the server's own work never share a connection: ten slow statements cannot hold up a key
  // check, a sign-in or /me.
  const userPool = newPool(options.maxConnections ?? DEFAULT_POOL_SIZE, 'expense-server-sql', {
    named: true,
  });
  // The server's own statements never wait long behind a user's lock: lock_timeout from the start of each
  // direct connection (single queries included), and SET LOCAL in each transaction (behind a pooler too).
  const internalPool = newPool(options.internalConnections ?? DEFAULT_INTERNAL_POOL_SIZE, 'expense-server', {
    startupOptions: ` -c lock_timeout=${lockTimeoutMs}`,
  });
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
    // More idle clients than callers queued for them (pg-pool queues this call synchronously, so two calls in
    // one tick do not both count one idle client): handed over on the next tick, no wait to bound, so no timer
    // and no abort listener.
    if (pool.idleCount > pool.waitingCount) return connect(pool);
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
      /** The connection must not be pooled again (its server process was ended). */
      discard: (reason: Error) => {
        broken ??= reason;
      },
      release: () => {
        client.off('error', onError);
        client.release(broken ?? false);
      },
    };
  };

  /**
   * Ends the server process running `client`'s statement (pg_terminate_backend over a direct connection of its
   * own: the pools may be full, and a pooler cannot). Direct: by process id; pooled: by the client's own
   * application_name, among the sessions that are not idle. Resolves with the process ids it signalled.
   */
  const terminate = async (client: pg.ClientBase, requestId: string | undefined): Promise<number[]> => {
    const name = applicationNameOf(client);
    const { processID } = client as unknown as { processID?: number | null };
    const killer = new pg.Client({
      connectionString: direct,
      application_name: 'expense-server-terminate',
      connectionTimeoutMillis: 5_000,
    });
    try {
      await killer.connect();
      const { rows } = pooled
        ? await killer.query<{ pid: number }>(
            `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = $1 AND state <> 'idle' AND pid <> pg_backend_pid()`,
            [name],
          )
        : await killer.query<{ pid: number }>(
            `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE pid = $1 AND application_name = $2`,
            [processID, name],
          );
      options.logger?.warn(
        { requestId, terminatedPids: rows.map((r) => r.pid), afterMs: terminateAfterMs },
        'a statement ran on after its cancel: its server process was terminated and its connection discarded',
      );
      return rows.map((r) => r.pid);
    } catch (error) {
      options.logger?.warn(
        { requestId, err: { message: (error as Error).message } },
        'could not terminate a statement that ran on after its cancel',
      );
      return [];
    } finally {
      await killer.end().catch(() => undefined);
    }
  };

  /**
   * A terminated statement's server process ends at its next check for interrupts, and its connection closes with
   * it (also through a pooler, which closes its client when the server connection goes): then the statement
   * settles. One still running `abandonAfterMs` later has its connection closed from this side, which settles it.
   */
  const abandonAfter = (
    client: pg.ClientBase,
    statement: Promise<void>,
    log: { requestId: string | undefined; pids: number[] },
  ): void => {
    const timer = setTimeout(() => {
      options.logger?.warn(
        { ...log, afterMs: abandonAfterMs },
        'a terminated statement still ran: its connection was closed from this side and given back, with its in-flight place',
      );
      // Every pooled client is a pg.Client (see uniquelyNamed); end() rejects the statement in flight.
      void (client as pg.Client).end().catch(() => undefined);
    }, abandonAfterMs);
    void statement.then(() => clearTimeout(timer));
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
      await tracked(
        client.query(
          `${spec.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'}; SET LOCAL lock_timeout = ${lockTimeoutMs}`,
        ),
      );
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
    const { client, tracked, isBroken, release, discard } = await checkout(userPool, options);
    const raw = sessionOf(client);
    // The statement in flight (settled either way), for a cancel to see whether it stopped.
    let running: Promise<void> | undefined;
    const inFlight = <R>(work: Promise<R>): Promise<R> => {
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      running = settled;
      void settled.then(() => {
        if (running === settled) running = undefined;
      });
      return tracked(work);
    };
    /** The protocol cancel; a statement still running terminateAfterMs later has its server process ended. */
    const cancel = async (): Promise<void> => {
      const statement = running;
      // The clock starts with the cancel, not with its delivery (a busy server may be slow to take it).
      const sent = raw.cancel?.();
      if (statement) {
        const stopped = await Promise.race([
          statement.then(() => true),
          delay(terminateAfterMs, false, { ref: false }),
        ]);
        if (!stopped) {
          discard(new Error('The statement ran on after its cancel; its server process was terminated.'));
          const terminatedPids = await terminate(client, options?.requestId);
          abandonAfter(client, statement, { requestId: options?.requestId, pids: terminatedPids });
        }
      }
      await sent;
    };
    const session: BatchSession & PgSession = {
      engine: 'postgres',
      database: client, // the guard verifies its dialect once per connection
      query: (text) => inFlight(raw.query(text)),
      queryBatch: (text) => inFlight(raw.queryBatch(text)),
      async ownerQuery<R>(text: string, params?: unknown[]) {
        const result = lastResult(
          await inFlight(client.query(text, params) as Promise<PgResult | PgResult[]>),
        );
        return { rows: (result?.rows ?? []) as R[], rowCount: result?.rowCount ?? 0 };
      },
      cancel,
      ...(pooled && { setsOutputSettingsPerTransaction: true }),
    };
    try {
      return await body(session);
    } catch (error) {
      if (!isBroken()) await tracked(client.query('ROLLBACK')).catch(() => undefined);
      throw error;
    } finally {
      // The connection goes back, and the caller's in-flight place is given back after this, only once the
      // statement has ended in the database (see abandonAfter for the bound).
      await running;
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
