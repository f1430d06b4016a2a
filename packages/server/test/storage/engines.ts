// Real engines for the storage tests: an embedded PGlite in a temporary directory, and a fresh PostgreSQL
// database (random name) on the local server, dropped after.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Database } from '../../src/storage/database.js';
import { type OpenDatabaseConfig, openDatabase } from '../../src/storage/open.js';

const ADMIN_URL = process.env.EXPENSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface EngineFixture {
  /** Config that opens this engine's database (PGlite: the same dataDir each time). */
  config: OpenDatabaseConfig;
  open(options?: Partial<OpenDatabaseConfig>): Promise<Database>;
  dispose(): Promise<void>;
}

async function pgliteFixture(): Promise<EngineFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'expense-storage-test-'));
  const config: OpenDatabaseConfig = { dataDir };
  return {
    config,
    open: (options) => openDatabase({ ...config, ...options }),
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function postgresFixture(): Promise<EngineFixture> {
  const name = `expense_storage_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const config: OpenDatabaseConfig = { databaseUrl: url.toString(), maxConnections: 4 };
  return {
    config,
    open: (options) => openDatabase({ ...config, ...options }),
    async dispose() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export const ENGINES = [
  ['pglite', pgliteFixture],
  ['postgres', postgresFixture],
] as const;
