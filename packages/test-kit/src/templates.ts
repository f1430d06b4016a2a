// One migrated database per test run, copied for each suite instead of migrating each one: a PGlite data
// directory (the server's `memory://` starts from a copy of it) and a PostgreSQL template database (the engines'
// fresh databases are CREATE DATABASE … TEMPLATE it), plus a blank PGlite directory (initdb alone). The root
// vitest global setup builds them from the current migrations and names them in these variables; without them
// every database starts empty and the server migrates it, as before (slower, never different).
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rename, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { type FreshPostgres, freshPostgres } from './postgres.js';
import { removeDir, tempDir } from './temp.js';

/** The migrated PGlite data directory (read by the server's storage for `memory://`). */
export const PGLITE_TEMPLATE_ENV = 'EXPENSE_TEST_PGLITE_TEMPLATE';
/** A PGlite data directory after initdb alone (no migrations), for the suites that need an empty database. */
export const PGLITE_BLANK_ENV = 'EXPENSE_TEST_PGLITE_BLANK';
/** The migrated PostgreSQL database the engines' fresh databases copy. */
export const POSTGRES_TEMPLATE_ENV = 'EXPENSE_TEST_POSTGRES_TEMPLATE';

/** The run's PostgreSQL template database, when the global setup made one. */
export function postgresTemplate(): string | undefined {
  return process.env[POSTGRES_TEMPLATE_ENV] || undefined;
}

/**
 * This run's variables, for a process started with an environment of its own: the templates, and TMPDIR (the
 * run's temporary directory, in memory where the machine has one: temp.ts), where a `memory://` server copies one.
 */
export function runEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [PGLITE_TEMPLATE_ENV, PGLITE_BLANK_ENV, POSTGRES_TEMPLATE_ENV, 'TMPDIR']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

/**
 * A new temporary directory for an empty PGlite database: a copy of the run's blank one (so opening it skips
 * initdb), or empty without one. Remove it with removeDir.
 */
export async function emptyPgliteDir(prefix = 'expense-pglite-'): Promise<string> {
  const dir = await tempDir(prefix);
  await copyFrom(PGLITE_BLANK_ENV, dir);
  return dir;
}

/** Copies the run's blank PGlite directory into `dir` (nothing without one): a database there opens empty, no initdb. */
export async function copyBlankPglite(dir: string): Promise<void> {
  await copyFrom(PGLITE_BLANK_ENV, dir);
}

/** Copies the run's migrated PGlite directory into `dir` (nothing without one): a database there opens migrated. */
export async function copyMigratedPglite(dir: string): Promise<void> {
  await copyFrom(PGLITE_TEMPLATE_ENV, dir);
}

async function copyFrom(variable: string, dir: string): Promise<void> {
  const template = process.env[variable];
  if (template) await cp(template, dir, { recursive: true });
}

/** Applies the server's migrations to a database (`expense-server migrate`). */
export type MigrateDatabase = (target: { databaseUrl: string } | { dataDir: string }) => Promise<void>;

export interface Templates {
  /** The variables naming the templates (set them before the test processes start). */
  env: Record<string, string>;
  /** Removes them. */
  remove(): Promise<void>;
}

/** Runs initdb in a directory (opens and closes a PGlite database there). */
export type InitPglite = (dataDir: string) => Promise<void>;

/**
 * Where the PGlite templates are kept between runs: `dir/key/{migrated,blank}`, `key` naming everything they are
 * made from (the migrations, the code that applies them, PGlite's version). Without it they are made per run.
 */
export interface TemplateCache {
  dir: string;
  key: string;
}

/**
 * Other keys' entries are removed once unused this long (a run still using one would have had an hour). A run
 * marks its entry used when it starts (the entry's mtime), so another worktree's older key stays while it is used.
 */
const STALE_CACHE_MS = 60 * 60 * 1000;

/**
 * The cached PGlite directory `name`, made by `make` in a directory of its own and moved into place when missing
 * (two runs making it at once: the first to finish keeps it).
 */
async function cachedDir(cache: TemplateCache, name: string, make: (dir: string) => Promise<void>) {
  const entry = join(cache.dir, cache.key);
  const target = join(entry, name);
  await mkdir(entry, { recursive: true });
  const now = new Date();
  await utimes(entry, now, now);
  if (existsSync(join(target, 'PG_VERSION'))) return target;
  const building = await mkdtemp(join(entry, `${name}-building-`));
  try {
    await make(building);
    const moved = await rename(building, target).then(
      () => true,
      () => false,
    );
    // Not moved: another run's is there (kept), or one a crash left incomplete (replaced).
    if (!moved && !existsSync(join(target, 'PG_VERSION'))) {
      await removeDir(target);
      await rename(building, target);
    }
  } finally {
    await removeDir(building);
  }
  return target;
}

async function pruneCache(cache: TemplateCache): Promise<void> {
  const entries = await readdir(cache.dir).catch(() => [] as string[]);
  for (const name of entries) {
    if (name === cache.key) continue;
    const entry = join(cache.dir, name);
    const { mtimeMs } = await stat(entry);
    if (Date.now() - mtimeMs > STALE_CACHE_MS) await removeDir(entry);
  }
}

/**
 * Builds the templates of the engines asked for (`postgres` false: PGlite only). With a `cache`, the PGlite ones
 * come from it (made there the first time), and stay after the run.
 */
export async function buildTemplates(
  migrate: MigrateDatabase,
  initPglite: InitPglite,
  options: { postgres: boolean; cache?: TemplateCache },
): Promise<Templates> {
  const { cache } = options;
  let directory: string | undefined;
  let blank: string | undefined;
  let database: FreshPostgres | undefined;
  const remove = async () => {
    await Promise.all([
      !cache && directory && removeDir(directory),
      !cache && blank && removeDir(blank),
      database?.drop(),
    ]);
  };
  const pglite = async () => {
    if (cache) directory = await cachedDir(cache, 'migrated', (dir) => migrate({ dataDir: dir }));
    else {
      directory = await tempDir('expense-pglite-template-');
      await migrate({ dataDir: directory });
    }
  };
  const empty = async () => {
    if (cache) blank = await cachedDir(cache, 'blank', initPglite);
    else {
      blank = await tempDir('expense-pglite-blank-');
      await initPglite(blank);
    }
  };
  if (cache) await pruneCache(cache);
  const postgres = async () => {
    database = await freshPostgres({ prefix: 'expense_template' });
    await migrate({ databaseUrl: database.url });
  };
  const failed = (await Promise.allSettled([pglite(), empty(), options.postgres && postgres()])).find(
    (result) => result.status === 'rejected',
  );
  if (failed) {
    await remove();
    throw failed.reason;
  }
  const env: Record<string, string> = {
    [PGLITE_TEMPLATE_ENV]: directory as string,
    [PGLITE_BLANK_ENV]: blank as string,
  };
  if (database) env[POSTGRES_TEMPLATE_ENV] = database.name;
  return { env, remove };
}
