import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { types } from '@electric-sql/pglite';
import { pinnedOutputSettings, type SessionResult } from '@expense/sql-guard';
import { PGliteTransactionInterruptedError, PGliteWorkerHost } from '@expense/sql-guard/pglite';
import { copyDirectory } from './copy-dir.js';
import {
  type BatchSession,
  type Connection,
  DATE_OID,
  type Engine,
  type ExclusiveOptions,
  INT8_OID,
  RolledBackError,
  type StorageLogger,
  type TransactionSpec,
} from './engine.js';
import { PreemptedError, StartDeadlineError } from './errors.js';
import { FairQueue } from './fair-queue.js';
import { DEFAULT_VACUUM, PgliteVacuum, type VacuumOptions } from './pglite-vacuum.js';

export const MEMORY_URL = 'memory://';

export interface PgliteOptions {
  /** A directory, or `memory://` for a database that lives as long as the process (a temporary directory,
   *  so the worker host can reopen it after interrupting a statement). */
  dataDir: string;
  /**
   * `memory://` only: a data directory the temporary one starts as a copy of (a migrated database, so the start
   * skips initdb and the migrations applied there: the tests' EXPENSE_TEST_PGLITE_TEMPLATE, see open.ts).
   */
  template?: string;
  /** Space reclamation (no autovacuum in PGlite): see pglite-vacuum.ts. */
  vacuum?: Partial<VacuumOptions>;
  /**
   * Restart the worker between requests once the process's memory (RSS) passes this many MiB (default 1024):
   * PGlite's WebAssembly heap grows with the largest statement it ran and never shrinks, and a restart gives
   * it back. Not again until the memory grew by RESTART_GROWTH_MIB since the last restart.
   */
  maxMemoryMb?: number;
  logger?: StorageLogger;
}

export const DEFAULT_MAX_MEMORY_MB = 1024;
/** After a restart that left the process above the bound (memory of the rest of the server), grow this first. */
const RESTART_GROWTH_MIB = 128;
/** The memory is checked after a transaction at most this often (a burst of small reads grows it little). */
const MEMORY_CHECK_EVERY_MS = 200;
const MIB = 1024 * 1024;

/**
 * The embedded database's buffer cache (PostgreSQL's shared_buffers) lives in the server's own memory, in
 * PGlite's WebAssembly heap: PGlite's default of 128MB fills up with use and is most of the server's RSS.
 * Pages it does not hold are read from the data directory through the OS page cache (docs/operations.md).
 * The guard's output formats are pinned from the start, as on the PostgreSQL engine's connections, so each
 * SQL request verifies them in its context instead of setting them (three statements fewer).
 */
export const PGLITE_SETTINGS = {
  shared_buffers: '16MB',
  // Bounds the temporary files of one statement (sorts, hashes spilling to disk); the same value as the
  // PostgreSQL migration sets for the database (0013_temp_file_limit.sql).
  temp_file_limit: '256MB',
  // The write-ahead log stays within a few segments between checkpoints (there is no checkpointer process:
  // checkpoints come from the WAL volume, and after each VACUUM of pglite-vacuum.ts); PostgreSQL's defaults
  // (80MB / 1GB) would let a burst of rolled-back writes leave up to a gigabyte of log behind.
  min_wal_size: '32MB',
  max_wal_size: '64MB',
  standard_conforming_strings: 'on',
  ...pinnedOutputSettings,
} as const;

const asText = (value: string) => value;
/** Owner value types equal to the pg engine's: bigint as a decimal string, date as 'YYYY-MM-DD'. */
const ownerParsers = { ...types.parsers, [INT8_OID]: asText, [DATE_OID]: asText };

/** The host answers in PostgreSQL's text; owner queries get parsed values, like pg gives them. */
function ownerRows<R>(result: SessionResult | undefined): { rows: R[]; rowCount: number } {
  if (!result) return { rows: [], rowCount: 0 };
  const rows = result.rows.map((row) => {
    const parsed: Record<string, unknown> = {};
    for (const field of result.fields) {
      const value = row[field.name];
      parsed[field.name] =
        typeof value === 'string' ? types.parseType(value, field.dataTypeID, ownerParsers) : value;
    }
    return parsed as R;
  });
  return { rows, rowCount: result.rowCount ?? rows.length };
}

const HOST_GONE = /PGlite worker (stopped|host is closed)/;
/** How often a running transaction looks whether another user waits (see ExclusiveOptions.fairShareMs). */
const PREEMPT_CHECK_MS = 100;
/** The fair queue's tenant for maintenance (VACUUM): it takes its turn like one more user. */
const MAINTENANCE = '\u0000maintenance';
/** How long after the server's own last query a user transaction waits for its next one (see ownersQuiet). */
const OWNER_QUIET_MS = 25;

export function isPgliteConnectionError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === undefined &&
    HOST_GONE.test(error.message)
  );
}

/**
 * PGlite in a worker thread (PGliteWorkerHost from @expense/sql-guard/pglite): one connection, whose
 * transactions the host serialises; a deadline can interrupt a statement by terminating the thread.
 */
export async function openPglite(options: PgliteOptions): Promise<Engine> {
  const temporary = options.dataDir === MEMORY_URL;
  const dataDir = temporary ? await mkdtemp(join(tmpdir(), 'expense-pglite-')) : resolve(options.dataDir);
  if (!temporary) await mkdir(dataDir, { recursive: true });
  let host: PGliteWorkerHost;
  try {
    if (temporary && options.template) await copyDirectory(options.template, dataDir);
    host = await PGliteWorkerHost.open({ dataDir, settings: PGLITE_SETTINGS });
  } catch (error) {
    if (temporary) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  // A call made from inside a transaction would queue behind that transaction forever: fail it instead
  // (on PostgreSQL it would silently run on another connection, outside the transaction).
  const inside = new AsyncLocalStorage<true>();
  const notNested = () => {
    if (inside.getStore())
      throw new Error('Nested database call inside a transaction: use the transaction object.');
  };

  const query = async <R>(text: string, params?: unknown[]) => {
    notNested();
    // Like pg: parameters use the extended protocol (one statement), none the simple one (a script).
    return ownerRows<R>(
      await owner(async () =>
        params && params.length > 0 ? await host.query(text, params) : (await host.exec(text)).at(-1),
      ),
    );
  };

  const transaction = async <T>(
    spec: TransactionSpec,
    body: (connection: Connection) => Promise<T>,
  ): Promise<T> => {
    notNested();
    const rollback = Symbol('rollback');
    let result: { value: T } | undefined;
    try {
      return await owner(() =>
        host.transaction((tx) =>
          inside.run(true, async () => {
            if (spec.readOnly) await tx.queryBatch('SET TRANSACTION READ ONLY');
            const connection: Connection = {
              async query<R>(text: string, params?: unknown[]) {
                return ownerRows<R>(
                  params && params.length > 0
                    ? await tx.query(text, params)
                    : (await tx.queryBatch(text)).at(-1),
                );
              },
            };
            const value = await body(connection);
            if (!spec.rollback) return value;
            result = { value };
            throw rollback; // the host rolls back when the callback throws
          }),
        ),
      );
    } catch (error) {
      if (error === rollback && result) return result.value;
      if (error instanceof Error && /failed earlier and was rolled back/.test(error.message)) {
        throw new RolledBackError(error.message);
      }
      throw error;
    }
  };

  const onHost = <T>(body: (session: BatchSession) => Promise<T>): Promise<T> =>
    host.exclusive((session) => {
      const pinned: BatchSession = {
        engine: 'pglite',
        database: session.database, // the guard verifies its dialect once per database
        query: (text) => session.query(text),
        queryBatch: (text) => session.queryBatch(text),
        ownerQuery: async <R>(text: string, params?: unknown[]) =>
          ownerRows<R>(
            params && params.length > 0
              ? await session.query(text, params)
              : (await session.queryBatch(text)).at(-1),
          ),
        cancel: () => session.cancel(),
      };
      return inside.run(true, () => body(pinned));
    });

  // User transactions take turns between users on the one connection (a slow user queues behind themself,
  // not in front of everyone), and one that cannot start by its deadline leaves the queue without running.
  // Owner queries (key checks, sign-in) do not queue here: they wait at most for the transaction running.
  const turns = new FairQueue(1);
  /** User transactions whose body runs on the engine (TurnsState.executing). */
  let executing = 0;
  // Owner queries waiting for the connection (key checks, /me, sign-in): they do not take turns, but a read
  // that had its fair share is stopped for them as for another user's transaction.
  const ownerWaits = new Set<{ since: number }>();
  let ownerDoneAt = 0;
  let ownerDone: (() => void)[] = [];
  const owner = <T>(call: () => Promise<T>): Promise<T> => {
    const wait = { since: Date.now() };
    ownerWaits.add(wait);
    return call().finally(() => {
      ownerWaits.delete(wait);
      ownerDoneAt = Date.now();
      const waiters = ownerDone;
      ownerDone = [];
      for (const wake of waiters) wake();
    });
  };
  /**
   * The server's own work goes first: a user transaction whose turn came starts once no owner call is pending and
   * none ended in the last OWNER_QUIET_MS (a request's owner queries come one after another), or at `startBy`.
   */
  const ownersQuiet = async (startBy: number | undefined): Promise<void> => {
    for (;;) {
      const quietFor = Date.now() - ownerDoneAt;
      if (ownerWaits.size === 0 && quietFor >= OWNER_QUIET_MS) return;
      if (startBy !== undefined && Date.now() >= startBy) throw new StartDeadlineError();
      const wake =
        ownerWaits.size > 0
          ? new Promise<void>((resolve) => ownerDone.push(resolve))
          : new Promise<void>((resolve) => setTimeout(resolve, OWNER_QUIET_MS - quietFor));
      await wake;
    }
  };
  const waitingSince = (tenant: string): number | undefined => {
    let since = turns.waitingSince(tenant, MAINTENANCE);
    for (const wait of ownerWaits) if (since === undefined || wait.since < since) since = wait.since;
    return since;
  };

  // A restart between requests once memory passed the bound, in a turn of its own (nothing else runs then).
  const maxMemory = (options.maxMemoryMb ?? DEFAULT_MAX_MEMORY_MB) * MIB;
  let restartFloor = 0;
  let restarting = false;
  let memoryCheckedAt = 0;
  const restartIfOverMemory = () => {
    // Reading the RSS is a system call that cost ~4% of a small read's main-thread time when done every request.
    const now = Date.now();
    if (now - memoryCheckedAt < MEMORY_CHECK_EVERY_MS) return;
    memoryCheckedAt = now;
    const rss = process.memoryUsage.rss();
    if (restarting || rss <= maxMemory || rss <= restartFloor + RESTART_GROWTH_MIB * MIB) return;
    restarting = true;
    void turns
      .acquire(MAINTENANCE)
      .then(async (release) => {
        try {
          await host.exclusive((session) => session.cancel()).catch(() => undefined);
          restartFloor = process.memoryUsage.rss();
          options.logger?.info(
            {
              rssMiB: Math.round(rss / MIB),
              afterMiB: Math.round(restartFloor / MIB),
              maxMiB: maxMemory / MIB,
            },
            'restarted the embedded database worker: the memory had passed its bound',
          );
        } finally {
          release();
        }
      })
      .finally(() => {
        restarting = false;
      });
  };
  const vacuum = new PgliteVacuum(
    (sql, maxMs) =>
      turns.acquire(MAINTENANCE).then(async (release) => {
        try {
          return await onHost(async (session) => {
            const timer = setTimeout(() => void session.cancel?.(), maxMs);
            try {
              await session.queryBatch(sql);
              return true;
            } catch (error) {
              if (error instanceof PGliteTransactionInterruptedError) return false;
              throw error;
            } finally {
              clearTimeout(timer);
            }
          });
        } catch (error) {
          if (error instanceof PGliteTransactionInterruptedError) return false;
          throw error;
        } finally {
          release();
        }
      }),
    async () =>
      (
        await query<{ name: string }>(
          `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_catalog.pg_tables
           WHERE schemaname IN ('public', 'expense_internal') ORDER BY 1`,
        )
      ).rows.map((r) => r.name),
    { ...DEFAULT_VACUUM, ...options.vacuum },
    options.logger,
  );

  const exclusive = async <T>(
    body: (session: BatchSession) => Promise<T>,
    exclusiveOptions?: ExclusiveOptions,
  ): Promise<T> => {
    notNested();
    if (!exclusiveOptions) return onHost(body);
    const release = await turns.acquire(exclusiveOptions.tenant, exclusiveOptions.startBy);
    try {
      await ownersQuiet(exclusiveOptions.startBy);
    } catch (error) {
      release();
      throw error;
    }
    let rolledBack = true;
    const { fairShareMs } = exclusiveOptions;
    let preempted = false;
    let onEngine = false;
    try {
      const value = await onHost(async (session) => {
        onEngine = true;
        executing++;
        if (fairShareMs === undefined) return body(session);
        // A statement cannot be paused: a transaction, read or write, is stopped and rolled back once it had its
        // fair share while another user waited as long, so that a bystander waits a share, not a whole deadline
        // (a stopped write loses nothing the deadline would not: it had not committed). Once its COMMIT is under
        // way it is left alone: stopping it then would leave its outcome unknown.
        // The slice counts from when the engine can run it: a worker still reopening after the last interrupt
        // answers this first (a transaction must not be stopped for the time the engine took to restart, nor for
        // the new backend's first statement, which loads its caches). A warm worker needs no probe.
        if (!host.warm) await session.queryBatch('SELECT 1');
        const started = Date.now();
        const watch = setInterval(() => {
          const since = waitingSince(exclusiveOptions.tenant);
          const now = Date.now();
          if (since === undefined || now - since < fairShareMs || now - started < fairShareMs) return;
          preempted = true;
          clearInterval(watch);
          void session.cancel?.();
        }, PREEMPT_CHECK_MS);
        try {
          return await body({ ...session, committing: () => clearInterval(watch) });
        } finally {
          clearInterval(watch);
        }
      });
      rolledBack = exclusiveOptions.rollsBack === true;
      return value;
    } catch (error) {
      if (preempted) throw new PreemptedError(fairShareMs as number);
      throw error;
    } finally {
      if (onEngine) executing--;
      release();
      // Rolled-back rows stay on disk until a VACUUM (there is no autovacuum): reclaim them after the answer.
      if (rolledBack && exclusiveOptions.writes?.length) vacuum.touched(exclusiveOptions.writes);
      restartIfOverMemory();
    }
  };

  return {
    name: 'pglite',
    query,
    transaction,
    exclusive,
    isConnectionError: isPgliteConnectionError,
    turns: () => ({ admitted: turns.running, executing, waiting: turns.waiting(MAINTENANCE) }),
    // A turn of its own in the fair queue (like VACUUM), then the host's queue: no transaction is half-way.
    async dumpDataDir() {
      notNested();
      const release = await turns.acquire(MAINTENANCE);
      try {
        return await host.dumpDataDir();
      } finally {
        release();
      }
    },
    async close() {
      vacuum.stop();
      await host.close();
      if (temporary) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
