/** `expense-server backup <file>` and `restore <file>`: the embedded engine's data directory (docs/operations.md). */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Command } from 'commander';
import {
  ConfigError,
  parseConfig,
  type ServerConfig,
  type ServerConfigInput,
} from '../../platform/config/config.js';
import { DATA_DIR_LOCK_FILE, type LockHolder, lockDataDir } from '../../platform/storage/data-dir-lock.js';
import { ADMIN_BACKUP_PATH, runningServer, SERVER_STATE_FILE } from './admin.js';
import { writeAtomically } from './files.js';

export interface BackupCommandDeps {
  addOptions: (command: Command) => Command;
  configFrom: (options: Record<string, unknown>) => ServerConfigInput;
}

function embeddedDataDir(config: ServerConfig): string {
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(
      'backup and restore are for the embedded engine (no DATABASE_URL): back a PostgreSQL server up with pg_dump.',
    );
  }
  return resolve(config.dataDir);
}

const say = (line: string) => process.stdout.write(`expense-server: ${line}\n`);

const BACKUP_HINT = (holder: LockHolder) =>
  `If it is a server that is starting, run the backup again once it serves (the backup then goes through it); otherwise wait for pid ${holder.pid} to finish, or stop it.`;
const RESTORE_HINT = (holder: LockHolder) =>
  `Stop the server first (Ctrl-C, or SIGTERM to pid ${holder.pid}), then restore; to copy its data while it serves, use \`expense-server backup <file>\` instead.`;

/** A consistent copy: through the running server (between its transactions), or the directory opened here. */
export async function backup(file: string, config: ServerConfig): Promise<void> {
  const dataDir = embeddedDataDir(config);
  const target = resolve(file);
  const server = await runningServer(dataDir);
  let bytes: Uint8Array;
  if (server) {
    if (server.url === null) {
      throw new Error(`the server on ${dataDir} (pid ${server.pid}) is starting: try again once it serves`);
    }
    const res = await fetch(`${server.url}${ADMIN_BACKUP_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
    });
    if (!res.ok) {
      throw new Error(
        `the server running on ${dataDir} (pid ${server.pid}) refused the backup: HTTP ${res.status}`,
      );
    }
    bytes = new Uint8Array(await res.arrayBuffer());
    await writeAtomically(target, bytes);
    say(`backup of the running server (pid ${server.pid}) written to ${target} (${bytes.length} bytes)`);
    return;
  }
  if (!existsSync(join(dataDir, 'PG_VERSION'))) throw new Error(`no embedded database in ${dataDir}`);
  // No server serves the folder: open it here, unless another process (a server still starting) has it.
  const lock = await lockDataDir(dataDir, BACKUP_HINT);
  try {
    const db = await PGlite.create({ dataDir });
    try {
      await db.exec('CHECKPOINT');
      bytes = new Uint8Array(await (await db.dumpDataDir('gzip')).arrayBuffer());
    } finally {
      await db.close();
    }
  } finally {
    await lock.release();
  }
  await writeAtomically(target, bytes);
  say(`backup of ${dataDir} (no server running on it) written to ${target} (${bytes.length} bytes)`);
}

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('.', '');

/** Moves every entry of `from` but the lock into `to` (renames within one file system). */
async function moveEntries(from: string, to: string, names: string[]): Promise<void> {
  for (const name of names) await rename(join(from, name), join(to, name));
}

/**
 * Restores a backup into the data directory, holding its lock throughout (refused while a server or anything else
 * has it open); the directory must be empty or missing, or `replace` set (the old files are then kept beside it in
 * `<dir>.before-restore-<time>`). The directory itself stays, with its lock, and its files are swapped.
 */
export async function restore(file: string, config: ServerConfig, replace: boolean): Promise<void> {
  const dataDir = embeddedDataDir(config);
  const bytes = await readFile(resolve(file));
  const lock = await lockDataDir(dataDir, RESTORE_HINT);
  try {
    const old = (await readdir(dataDir)).filter((name) => name !== DATA_DIR_LOCK_FILE);
    if (old.length > 0 && !replace) {
      throw new Error(`${dataDir} is not empty: restore into an empty directory, or add --replace`);
    }
    // Unpacked and opened once beside the target (PostgreSQL checks it), then moved into place.
    const staging = `${dataDir}.restoring-${stamp()}`;
    await mkdir(dirname(dataDir), { recursive: true });
    try {
      const db = await PGlite.create({ dataDir: staging, loadDataDir: new Blob([bytes]) });
      try {
        await db.query('SELECT 1');
      } finally {
        await db.close();
      }
      // The backed-up server's state file and lock, not a running one's.
      await rm(join(staging, SERVER_STATE_FILE), { force: true });
      await rm(join(staging, DATA_DIR_LOCK_FILE), { force: true });
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw new Error(`${file} is not a backup this server can restore: ${(error as Error).message}`);
    }
    let kept: string | undefined;
    if (old.length > 0) {
      kept = `${dataDir}.before-restore-${stamp()}`;
      await mkdir(kept);
      await moveEntries(dataDir, kept, old);
    }
    await moveEntries(staging, dataDir, await readdir(staging));
    await rmdir(staging);
    say(
      `restored ${resolve(file)} into ${dataDir}${kept ? ` (the previous files are kept in ${kept})` : ''}; start the server on it`,
    );
  } finally {
    await lock.release();
  }
}

/** A refusal with a code and a hint (the lock's, migrate-to's) as two lines; anything else as one. */
export function describeCommandFailure(error: unknown): string {
  if (error instanceof Error && 'code' in error && 'hint' in error && typeof error.hint === 'string') {
    return `expense-server: error: ${error.message} (${String(error.code)})\nhint: ${error.hint}\n`;
  }
  return `expense-server: ${error instanceof Error ? error.message : String(error)}\n`;
}

export function registerBackupCommands(program: Command, deps: BackupCommandDeps): void {
  const fail = (error: unknown) => {
    process.stderr.write(describeCommandFailure(error));
    process.exit(1);
  };
  deps
    .addOptions(
      program
        .command('backup')
        .argument('<file>', 'the backup to write (a gzipped tarball of the data directory)')
        .description(
          'a consistent copy of the embedded database, through the server running on it if one does',
        ),
    )
    .action((file: string, opts: Record<string, unknown>) =>
      backup(file, parseConfig(deps.configFrom(opts))).catch(fail),
    );
  deps
    .addOptions(
      program
        .command('restore')
        .argument('<file>', 'a backup written by `expense-server backup` or the schedule')
        .option('--replace', 'replace a data directory that is not empty (the old one is kept beside it)')
        .description('restore a backup into the data directory (no server may run on it)'),
    )
    .action((file: string, opts: Record<string, unknown>) =>
      restore(file, parseConfig(deps.configFrom(opts)), opts.replace === true).catch(fail),
    );
}
