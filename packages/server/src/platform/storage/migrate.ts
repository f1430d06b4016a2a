import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.js';
import type { StorageLogger } from './engine.js';
import { MigrationError, StorageError } from './errors.js';
import { INTERNAL_SCHEMA, MIGRATION_LOCK_KEY } from './names.js';

export interface Migration {
  version: number;
  name: string;
  /** sha256 of the file with line endings normalised to \n. */
  checksum: string;
  sql: string;
}

export interface MigrateResult {
  applied: { version: number; name: string; ms: number }[];
  /** Versions found already applied (by this or another process). */
  skipped: number[];
  ms: number;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const TABLE = `${INTERNAL_SCHEMA}.schema_migrations`;

function moduleDir(): string {
  // CJS bundle: __dirname; ESM (bundle, vitest, tsx): import.meta.url.
  return typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
}

/** packages/server/migrations, found from dist/ (built) or src/platform/storage/ (source, vitest). */
export function migrationsDirectory(): string {
  let dir = moduleDir();
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, '0001_roles_and_internal.sql'))) return candidate;
    dir = dirname(dir);
  }
  throw new MigrationError('migration_failed', `No migrations directory found above ${moduleDir()}.`);
}

export function loadMigrations(directory = migrationsDirectory()): Migration[] {
  const migrations = readdirSync(directory)
    .map((file) => ({ file, match: FILE.exec(file) }))
    .filter((entry): entry is { file: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ file, match }) => {
      const sql = readFileSync(join(directory, file), 'utf8').replace(/\r\n/g, '\n');
      return {
        version: Number(match[1]),
        name: match[2] as string,
        checksum: createHash('sha256').update(sql).digest('hex'),
        sql,
      };
    })
    .sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new MigrationError(
        'migration_failed',
        `Two migration files share version ${migrations[i]?.version}.`,
      );
    }
  }
  return migrations;
}

/**
 * Serialises migrators across processes (PostgreSQL) for the rest of the transaction. Migrations wait for their
 * locks as long as it takes (another process migrating, DDL behind running statements): not the server's
 * lock_timeout for its own transactions.
 */
async function lockAndBootstrap(tx: Queryable): Promise<Map<number, string>> {
  await tx.query(
    `SET LOCAL lock_timeout = 0;
     SELECT pg_catalog.pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});
     SET LOCAL client_min_messages = warning;
     CREATE SCHEMA IF NOT EXISTS ${INTERNAL_SCHEMA};
     CREATE TABLE IF NOT EXISTS ${TABLE} (
       version    integer PRIMARY KEY,
       name       text NOT NULL,
       checksum   text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
  const { rows } = await tx.query<{ version: number; checksum: string }>(
    `SELECT version, checksum FROM ${TABLE}`,
  );
  return new Map(rows.map((row) => [row.version, row.checksum]));
}

function verify(migration: Migration, checksum: string): void {
  if (checksum !== migration.checksum) {
    throw new MigrationError(
      'migration_checksum_mismatch',
      `Migration ${migration.version} (${migration.name}) was changed after it was applied; add a new migration instead.`,
      migration.version,
    );
  }
}

/**
 * Applies pending migrations in version order, each in its own transaction under an advisory lock, and records
 * them. Safe to run twice and from several processes at once: a migration another process applied meanwhile is
 * found under the lock and skipped. Refuses a database whose applied migrations differ from the files.
 */
export async function migrate(
  db: Database,
  options: { migrations?: Migration[]; logger?: StorageLogger } = {},
): Promise<MigrateResult> {
  const started = performance.now();
  const migrations = options.migrations ?? loadMigrations();
  const known = new Set(migrations.map((m) => m.version));
  const result: MigrateResult = { applied: [], skipped: [], ms: 0 };

  const applied = await db.transaction(lockAndBootstrap);
  for (const version of applied.keys()) {
    if (!known.has(version)) {
      throw new MigrationError(
        'migration_failed',
        `The database has migration ${version}, which this version of the server does not know; upgrade the server.`,
        version,
      );
    }
  }

  for (const migration of migrations) {
    const recorded = applied.get(migration.version);
    if (recorded !== undefined) {
      verify(migration, recorded);
      result.skipped.push(migration.version);
      continue;
    }
    const migrationStarted = performance.now();
    const ran = await db.transaction(async (tx) => {
      const now = await lockAndBootstrap(tx);
      const meanwhile = now.get(migration.version);
      if (meanwhile !== undefined) {
        verify(migration, meanwhile);
        return false;
      }
      try {
        await tx.query(migration.sql);
      } catch (error) {
        if (error instanceof StorageError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new MigrationError(
          'migration_failed',
          `Migration ${migration.version} (${migration.name}) failed: ${message}`,
          migration.version,
          { cause: error },
        );
      }
      await tx.query(`INSERT INTO ${TABLE} (version, name, checksum) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      return true;
    });
    if (ran) {
      const ms = Math.round(performance.now() - migrationStarted);
      result.applied.push({ version: migration.version, name: migration.name, ms });
      options.logger?.info({ version: migration.version, name: migration.name, ms }, 'migration applied');
    } else {
      result.skipped.push(migration.version);
    }
  }
  result.ms = Math.round(performance.now() - started);
  return result;
}
