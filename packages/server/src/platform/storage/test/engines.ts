// Real engines for the storage tests: an embedded PGlite in a temporary directory (a test may open it again),
// and a fresh PostgreSQL database (@expense/test-kit's freshPostgres), dropped after.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyBlankPglite, copyMigratedPglite, engineSelected, freshPostgres } from '@expense/test-kit';
import type { Database } from '../database.js';
import { type OpenDatabaseConfig, openDatabase } from '../open.js';

export interface EngineFixture {
  /** Config that opens this engine's database (PGlite: the same dataDir each time). */
  config: OpenDatabaseConfig;
  open(options?: Partial<OpenDatabaseConfig>): Promise<Database>;
  dispose(): Promise<void>;
}

async function pgliteFixture(): Promise<EngineFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'expense-storage-test-'));
  const config: OpenDatabaseConfig = { dataDir };
  let first = true;
  return {
    config,
    async open(options) {
      // A first open starts from the run's migrated copy (no initdb, no migrations to apply), or with `migrate:
      // false` from its blank one (no initdb).
      if (first) await (options?.migrate === false ? copyBlankPglite(dataDir) : copyMigratedPglite(dataDir));
      first = false;
      return openDatabase({ ...config, ...options });
    },
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function postgresFixture(): Promise<EngineFixture> {
  const database = await freshPostgres({ prefix: 'expense_storage_test' });
  const config: OpenDatabaseConfig = { databaseUrl: database.url, maxConnections: 4 };
  return {
    config,
    open: (options) => openDatabase({ ...config, ...options }),
    dispose: database.drop,
  };
}

/** Those of EXPENSE_TEST_ENGINES (test-kit's engineSelected). */
export const ENGINES = (
  [
    ['pglite', pgliteFixture],
    ['postgres', postgresFixture],
  ] as const
).filter(([name]) => engineSelected(name));
