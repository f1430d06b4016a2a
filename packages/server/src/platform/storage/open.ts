import { lockDataDir } from './data-dir-lock.js';
import type { Database } from './database.js';
import type { Engine, StorageLogger } from './engine.js';
import { StorageError } from './errors.js';
import { migrate } from './migrate.js';
import { MEMORY_URL, openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { databaseOn } from './transactions.js';

export interface OpenDatabaseConfig {
  /** `postgres://` or `postgresql://` for a PostgreSQL 15+ server; `memory://` for a throw-away embedded
   *  database; unset for the embedded database in `dataDir`. */
  databaseUrl?: string;
  /** Directory of the embedded database (default `./.expense/data`). */
  dataDir?: string;
  logger?: StorageLogger;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /**
   * A direct PostgreSQL URL for what needs a session of its own: migrations (under their advisory lock) and
   * LISTEN. Default databaseUrl. When it differs, databaseUrl may be a transaction-mode pooler.
   */
  directUrl?: string;
  /** PostgreSQL: connections for user SQL (default 10). */
  maxConnections?: number;
  /** PostgreSQL: connections for the server's own work, never taken by user SQL (default 4). */
  internalConnections?: number;
  /** PostgreSQL: see PostgresOptions.abandonAfterMs (default 5 minutes; tests shorten it). */
  abandonAfterMs?: number;
  /** Embedded: restart the engine's worker between requests once the process's memory passes this (MiB). */
  embeddedMaxMemoryMb?: number;
  /**
   * `memory://` with migrations: start from a copy of this migrated PGlite data directory instead of running
   * initdb and every migration (default EXPENSE_TEST_PGLITE_TEMPLATE, which the test runs set; migrations the
   * copy lacks are applied as usual).
   */
  memoryTemplate?: string;
}

/** The test runs' migrated data directory (docs/testing.md): `memory://` starts from a copy of it. */
export const PGLITE_TEMPLATE_ENV = 'EXPENSE_TEST_PGLITE_TEMPLATE';

export const DEFAULT_DATA_DIR = './.expense/data';

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/** The direct URL when it is set and differs from databaseUrl (which is then treated as a pooler). */
function directUrlOf(config: OpenDatabaseConfig, url: string): string | undefined {
  const direct = config.directUrl?.trim() || undefined;
  if (direct === undefined || direct === url) return undefined;
  if (!isPostgresUrl(direct)) {
    throw new StorageError(
      'invalid_database_url',
      'DATABASE_DIRECT_URL must start with postgres:// or postgresql://.',
    );
  }
  return direct;
}

async function openEngine(config: OpenDatabaseConfig): Promise<Engine> {
  const url = config.databaseUrl?.trim() || undefined;
  if (isPostgresUrl(url)) {
    const direct = directUrlOf(config, url);
    return openPostgres({
      connectionString: url,
      ...(direct && { directConnectionString: direct, pooled: true }),
      ...(config.maxConnections === undefined ? {} : { maxConnections: config.maxConnections }),
      ...(config.internalConnections === undefined
        ? {}
        : { internalConnections: config.internalConnections }),
      ...(config.abandonAfterMs === undefined ? {} : { abandonAfterMs: config.abandonAfterMs }),
      ...(config.logger ? { logger: config.logger } : {}),
    });
  }
  if (config.directUrl?.trim()) {
    throw new StorageError(
      'invalid_database_url',
      'DATABASE_DIRECT_URL needs DATABASE_URL to be a postgres:// URL too.',
    );
  }
  if (url !== undefined && url !== MEMORY_URL) {
    throw new StorageError(
      'invalid_database_url',
      'DATABASE_URL must start with postgres:// or postgresql://, or be memory://; leave it unset for the embedded database.',
    );
  }
  const template =
    config.migrate === false ? undefined : (config.memoryTemplate ?? process.env[PGLITE_TEMPLATE_ENV]);
  const dataDir = url ?? config.dataDir ?? DEFAULT_DATA_DIR;
  // One process per data directory, for as long as it is open (data-dir-lock.ts).
  const lock = dataDir === MEMORY_URL ? undefined : await lockDataDir(dataDir);
  let engine: Engine;
  try {
    engine = await openPglite({
      dataDir,
      ...(config.embeddedMaxMemoryMb === undefined ? {} : { maxMemoryMb: config.embeddedMaxMemoryMb }),
      ...(template ? { template } : {}),
      ...(config.logger ? { logger: config.logger } : {}),
    });
  } catch (error) {
    await lock?.release();
    throw error;
  }
  if (lock) {
    const close = engine.close.bind(engine);
    engine.close = () => close().finally(() => lock.release());
  }
  return engine;
}

/** Opens the configured database and (unless `migrate: false`) brings its schema up to date. */
export async function openDatabase(config: OpenDatabaseConfig = {}): Promise<Database> {
  const url = config.databaseUrl?.trim() || undefined;
  const direct = isPostgresUrl(url) ? directUrlOf(config, url) : undefined;
  const db = databaseOn(await openEngine(config));
  if (config.migrate !== false) {
    try {
      // Behind a pooler, migrations take their own direct connection, closed when they are done.
      const target = direct
        ? databaseOn(
            await openPostgres({
              connectionString: direct,
              maxConnections: 1,
              internalConnections: 1,
              ...(config.logger ? { logger: config.logger } : {}),
            }),
          )
        : db;
      try {
        await migrate(target, config.logger ? { logger: config.logger } : {});
      } finally {
        if (target !== db) await target.close();
      }
    } catch (error) {
      await db.close().catch(() => {});
      throw error;
    }
  }
  return db;
}
