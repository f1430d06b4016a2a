/**
 * `expense-server migrate-to <postgres url>`: moves an embedded installation (EXPENSE_DATA_DIR) to PostgreSQL
 * (docs/operations.md, "Moving to PostgreSQL").
 *
 * A move is a cut-over, so it takes the folder's lock (data-dir-lock.ts) for the whole move and refuses while a
 * server (or anything else) has it: a copy taken from a snapshot of a serving folder would leave every later write
 * behind in a folder nobody reads any more. The folder itself is never opened: its files are copied beside it, the copy is opened
 * (and brought to this version's migrations, when it is behind), read, and removed. The target is migrated with
 * the server's own migrations, then filled in one transaction (copy.ts).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import {
  CONFIG_ENV,
  parseConfig,
  type ServerConfig,
  type ServerConfigInput,
} from '../../platform/config/config.js';
import { copyDirectory } from '../../platform/storage/copy-dir.js';
import {
  DATA_DIR_LOCK_FILE,
  DataDirInUseError,
  type DataDirLock,
  lockDataDir,
} from '../../platform/storage/data-dir-lock.js';
import type { Database } from '../../platform/storage/database.js';
import { isPostgresUrl, migrate, openDatabase } from '../../platform/storage/index.js';
import { SERVER_STATE_FILE } from '../backup/admin.js';
import { type CopyOptions, copyDatabase, type MigrateReport } from './copy.js';
import { MigrateError, redactUrl } from './errors.js';

export interface MigrateToOptions {
  /** Lines of progress and of the result (default: stdout, each prefixed `expense-server: `). */
  say?: (line: string) => void;
  /** Rows per round trip (see CopyOptions). */
  batchRows?: number;
  /** After each table (see CopyOptions.onTable); the lines are said besides. */
  onTable?: CopyOptions['onTable'];
}

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('.', '');

/** The folder's lock, held for the whole move: no server starts on it while it is read. */
async function lockSource(dataDir: string): Promise<DataDirLock> {
  try {
    return await lockDataDir(dataDir);
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    throw new MigrateError(
      'migrate_server_running',
      `A server or another command (pid ${error.holder.pid}, ${error.holder.command}) has ${dataDir} open: a move made now would leave its later writes behind. Nothing was copied.`,
      `Stop the server (Ctrl-C, or SIGTERM to pid ${error.holder.pid}), run migrate-to again, then start the server with DATABASE_URL set to the target.`,
      { cause: error },
    );
  }
}

/** Opens the target and applies this server's migrations to it; failures are coded. */
async function openTarget(url: string): Promise<{ db: Database; applied: number }> {
  let db: Database | undefined;
  try {
    db = await openDatabase({ databaseUrl: url, migrate: false, maxConnections: 1, internalConnections: 1 });
    const result = await migrate(db);
    return { db, applied: result.applied.length };
  } catch (error) {
    await db?.close().catch(() => {});
    throw new MigrateError(
      'migrate_target_unavailable',
      `The target ${redactUrl(url)} could not be opened and migrated: ${error instanceof Error ? error.message : String(error)}. Nothing was copied.`,
      'Check the URL, that PostgreSQL 15+ runs there, and that the role owns the database (it creates the schemas and, once, the roles expense_sql and expense_fx; see docs/operations.md, Engines). Use a direct URL, not a pooler.',
      { cause: error },
    );
  }
}

/** Moves the embedded database of `config` into the PostgreSQL database at `targetUrl`; answers what it copied. */
export async function migrateTo(
  targetUrl: string,
  config: ServerConfig,
  options: MigrateToOptions = {},
): Promise<MigrateReport> {
  const say = options.say ?? ((line: string) => process.stdout.write(`expense-server: ${line}\n`));
  if (config.databaseUrl !== undefined) {
    throw new MigrateError(
      'migrate_not_embedded',
      `migrate-to moves the embedded database in EXPENSE_DATA_DIR, but DATABASE_URL is set (${redactUrl(config.databaseUrl)}): this installation does not use the embedded engine.`,
      'Run it without DATABASE_URL (and with --data-dir or EXPENSE_DATA_DIR naming the embedded folder); to copy one PostgreSQL database to another use pg_dump (docs/operations.md, Backups).',
    );
  }
  if (!isPostgresUrl(targetUrl)) {
    throw new MigrateError(
      'migrate_invalid_target',
      `The target must be a postgres:// or postgresql:// URL, not ${JSON.stringify(redactUrl(targetUrl))}.`,
      'Give the URL of an empty PostgreSQL 15+ database, e.g. expense-server migrate-to postgres://expense@db.example/expense',
    );
  }
  const dataDir = resolve(config.dataDir);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new MigrateError(
      'migrate_no_embedded_database',
      `There is no embedded database in ${dataDir}.`,
      'Name the folder the server runs on with --data-dir or EXPENSE_DATA_DIR (default ./.expense/data).',
    );
  }
  const lock = await lockSource(dataDir);
  say(`moving the embedded database in ${dataDir} to ${redactUrl(targetUrl)}`);
  const snapshot = `${dataDir}.migrate-to-${stamp()}`;
  let source: Database | undefined;
  let target: Database | undefined;
  try {
    await copyDirectory(dataDir, snapshot).catch((error: unknown) => {
      throw new MigrateError(
        'migrate_source_unreadable',
        `The folder's files could not be copied to ${snapshot} to be read: ${error instanceof Error ? error.message : String(error)}. Nothing was copied to the target.`,
        'migrate-to reads a copy of the folder made beside it: make room for one more folder of its size there (and let this user write to it), then run it again.',
        { cause: error },
      );
    });
    await rm(join(snapshot, SERVER_STATE_FILE), { force: true });
    await rm(join(snapshot, DATA_DIR_LOCK_FILE), { force: true });
    let behind: number;
    try {
      source = await openDatabase({ dataDir: snapshot, migrate: false });
      behind = (await migrate(source)).applied.length;
    } catch (error) {
      throw new MigrateError(
        'migrate_source_unreadable',
        `The embedded database in ${dataDir} could not be opened and brought to this version's migrations (in a copy): ${error instanceof Error ? error.message : String(error)}. Nothing was copied to the target.`,
        'Start the server on the folder once (it says what is wrong with it), or restore a backup into it (expense-server restore), then run migrate-to again.',
        { cause: error },
      );
    }
    if (behind > 0) say(`the embedded database was ${behind} migrations behind: applied to the copy only`);
    const opened = await openTarget(targetUrl);
    target = opened.db;
    say(
      opened.applied > 0
        ? `target migrated (${opened.applied} migrations applied)`
        : 'target already migrated',
    );
    const report = await copyDatabase(source, target, {
      ...(options.batchRows === undefined ? {} : { batchRows: options.batchRows }),
      onTable: async (copied) => {
        say(`copied ${copied.table}: ${copied.rows} rows (${copied.index + 1}/${copied.of})`);
        await options.onTable?.(copied);
      },
    });
    for (const line of summary(report, dataDir, targetUrl)) say(line);
    return report;
  } finally {
    await target?.close().catch(() => {});
    await source?.close().catch(() => {});
    await rm(snapshot, { recursive: true, force: true });
    await lock.release();
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/** The verification table and the next step. */
export function summary(report: MigrateReport, dataDir: string, targetUrl: string): string[] {
  const width = Math.max(...report.tables.map((t) => t.table.length));
  const lines = [
    `verified in the target's transaction before it committed: every table's row count and checksum equal the embedded database's`,
    ...report.tables.map(
      (t) =>
        `  ${t.table.padEnd(width)} ${count(t.rows).padStart(9)} rows  checksum ${t.checksum}${
          t.leftBehind > 0 ? `  (${count(t.leftBehind)} left behind: ${t.why})` : ''
        }`,
    ),
    ...report.skipped.map((s) => `  ${s.table.padEnd(width)}       not copied: ${s.why}`),
    ...report.workspaces.map(
      (w) =>
        `  workspace ${JSON.stringify(w.name)} (${w.workspaceId}): ${Object.entries(w.tables)
          .map(([table, n]) => `${table.replace(/^public\./, '')} ${count(n)}`)
          .join(', ')}; checksum ${w.checksum}, equal`,
    ),
    `moved ${count(report.rows)} rows of ${report.tables.length} tables in ${(report.ms / 1000).toFixed(1)} s (${report.sequences} sequences set, ${report.triggers} triggers held off during the copy)`,
    `the embedded data folder ${dataDir} was left untouched: keep it until you are satisfied, and start no server on it again (its data would drift apart)`,
    `next: start the server on PostgreSQL, e.g. DATABASE_URL='${redactUrl(targetUrl)}' expense-server start (with your password in place of ***); the same keys, sessions and history work there`,
  ];
  return lines;
}

export interface MigrateCommandDeps {
  /** The server's configuration from the command's options over the environment (bin.ts). */
  configFrom: (options: Record<string, unknown>) => ServerConfigInput;
}

/** A MigrateError as two lines (what and its code, then the next step); anything else as one. */
export function describeFailure(error: unknown): string {
  if (error instanceof MigrateError) {
    return `expense-server: error: ${error.message} (${error.code})\nhint: ${error.hint}\n`;
  }
  return `expense-server: error: ${error instanceof Error ? error.message : String(error)}\n`;
}

export function registerMigrateCommand(program: Command, deps: MigrateCommandDeps): void {
  program
    .command('migrate-to')
    .argument('<postgres-url>', 'an empty PostgreSQL 15+ database (postgres://user:password@host/db)')
    .description(
      'move the embedded database (EXPENSE_DATA_DIR) to PostgreSQL: the way a household outgrows one machine',
    )
    .addOption(
      new Option('--data-dir <dir>', "the embedded database's directory (default ./.expense/data)").env(
        CONFIG_ENV.dataDir,
      ),
    )
    .addHelpText(
      'after',
      `
Copies every user, key (their hashes), session, workspace, membership, invitation, OAuth client and grant, the
ledger, the change history, kept idempotency records and FX rates into the PostgreSQL database, which it migrates
first and which must hold no data. One transaction: all or nothing. Every table's row count and checksum are
verified before it commits, and printed.

Stop the server first: migrate-to refuses while one runs on the data folder. The folder is left untouched; after
the move, start the server with DATABASE_URL set to the target. See docs/operations.md (Moving to PostgreSQL).

Example:
  expense-server migrate-to postgres://expense:secret@db.example:5432/expense --data-dir ./.expense/data`,
    )
    .action((url: string, opts: Record<string, unknown>) =>
      Promise.resolve()
        .then(async () => {
          await migrateTo(url, parseConfig(deps.configFrom(opts)));
        })
        .catch((error: unknown) => {
          process.stderr.write(describeFailure(error));
          process.exit(1);
        }),
    );
}
