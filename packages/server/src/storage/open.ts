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
  /** PostgreSQL pool size (default 10). */
  maxConnections?: number;
}

export const DEFAULT_DATA_DIR = './.expense/data';

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

async function openEngine(config: OpenDatabaseConfig): Promise<Engine> {
  const url = config.databaseUrl?.trim() || undefined;
  if (isPostgresUrl(url)) {
    return openPostgres({
      connectionString: url,
      ...(config.maxConnections === undefined ? {} : { maxConnections: config.maxConnections }),
      ...(config.logger ? { logger: config.logger } : {}),
    });
  }
  if (url !== undefined && url !== MEMORY_URL) {
    throw new StorageError(
      'invalid_database_url',
      'DATABASE_URL must start with postgres:// or postgresql://, or be memory://; leave it unset for the embedded database.',
    );
  }
  return openPglite({
    dataDir: url ?? config.dataDir ?? DEFAULT_DATA_DIR,
    ...(config.logger ? { logger: config.logger } : {}),
  });
}

/** Opens the configured database and (unless `migrate: false`) brings its schema up to date. */
export async function openDatabase(config: OpenDatabaseConfig = {}): Promise<Database> {
  const db = databaseOn(await openEngine(config));
  if (config.migrate !== false) {
    try {
      await migrate(db, config.logger ? { logger: config.logger } : {});
    } catch (error) {
      await db.close().catch(() => {});
      throw error;
    }
  }
  return db;
}
