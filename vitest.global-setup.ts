// Once per run, before any test file: the built server and CLI that some suites start as processes (built here
// when missing or older than their sources, as `pnpm expense` does), and the migrated PGlite data directory and
// PostgreSQL template database that every suite's database starts as a copy of (test-kit's templates.ts), made
// by the server's own `migrate` command from the current migrations, named to the test processes through
// environment variables (the PostgreSQL one dropped after the run, the PGlite ones kept for the next: templateCache).
// The run's temporary files live in memory where the machine has a tmpfs (test-kit's useMemoryTmpdir).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  buildTemplates,
  engineSelected,
  type InitPglite,
  type MigrateDatabase,
  PGLITE_TEMPLATE_ENV,
  type TemplateCache,
  useMemoryTmpdir,
} from './packages/test-kit/src/index.js';
import { buildIfStale } from './scripts/build-if-stale.mjs';

const SERVER_BIN = new URL('./packages/server/src/bin.ts', import.meta.url).pathname;
const SQL_GUARD = new URL('./packages/sql-guard/', import.meta.url).pathname;
const run = promisify(execFile);
const MIGRATIONS = new URL('./packages/server/migrations/', import.meta.url).pathname;

const STORAGE = new URL('./packages/server/src/platform/storage/', import.meta.url).pathname;

/** The files of a folder, not its subfolders (storage's tests are in its test/ folder). */
const filesIn = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(dir, entry.name))
    .sort();

/**
 * The PGlite templates are kept between runs, named by a hash of what they are made from: every migration, the
 * server's storage code (it opens the engine and applies them), this file (it runs both) and PGlite's version (a
 * change to any makes new ones; CI's clean clone makes them once, for `pnpm test`, and `pnpm test:quick` after it
 * finds them).
 */
function templateCache(): TemplateCache {
  const hash = createHash('sha256');
  const pglite = join(
    dirname(createRequire(SERVER_BIN).resolve('@electric-sql/pglite')),
    '..',
    'package.json',
  );
  const inputs = [...filesIn(MIGRATIONS), ...filesIn(STORAGE), new URL(import.meta.url).pathname, pglite];
  for (const file of inputs) hash.update(file.slice(file.lastIndexOf('/') + 1)).update(readFileSync(file));
  return {
    dir: new URL('./node_modules/.cache/expense-test-templates/', import.meta.url).pathname,
    key: hash.digest('hex').slice(0, 16),
  };
}

const migrate: MigrateDatabase = async (target) => {
  const flag = 'dataDir' in target ? ['--data-dir', target.dataDir] : ['--database-url', target.databaseUrl];
  const { DATABASE_URL: _url, DATABASE_DIRECT_URL: _direct, ...env } = process.env;
  await run(
    process.execPath,
    ['--conditions=@expense/source', '--import', 'tsx', SERVER_BIN, 'migrate', ...flag],
    { env },
  );
};

const initPglite: InitPglite = async (dataDir) => {
  const script = `import { PGlite } from '@electric-sql/pglite';
    await (await PGlite.create({ dataDir: process.argv[1] })).close();`;
  await run(process.execPath, ['--input-type=module', '-e', script, dataDir], { cwd: SQL_GUARD });
};

export default async function setup(): Promise<() => Promise<void>> {
  // Each project with databases names this file; the first builds, the others share (so does a shell that set
  // the variables itself).
  if (process.env[PGLITE_TEMPLATE_ENV]) return async () => {};
  buildIfStale({
    bin: 'packages/server/dist/bin.js',
    sources: [
      'packages/sql-guard/src',
      'packages/server/src',
      'packages/server/migrations',
      'packages/wire/src',
    ],
    filter: '@expense/server...',
  });
  buildIfStale({
    bin: 'packages/cli/dist/bin.js',
    sources: ['packages/cli/src', 'packages/cli/package.json', 'packages/wire/src'],
    filter: '@expense/cli',
  });
  // Before the templates: they, the databases copied from them and every other temporary file of the run go there.
  const restoreTmpdir = await useMemoryTmpdir();
  const started = performance.now();
  const templates = await buildTemplates(migrate, initPglite, {
    postgres: engineSelected('postgres') || engineSelected('pooled'),
    cache: templateCache(),
  }).catch(async (error: unknown) => {
    await restoreTmpdir();
    throw error;
  });
  Object.assign(process.env, templates.env);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`migrated database templates ready in ${seconds} s\n`);
  return async () => {
    for (const name of Object.keys(templates.env)) delete process.env[name];
    await templates.remove();
    await restoreTmpdir();
  };
}
