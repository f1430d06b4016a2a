/**
 * One process per embedded data directory. PGlite is the only PostgreSQL backend of its directory and knows
 * nothing of other processes: two processes with one directory open corrupt it. So whatever opens an embedded
 * directory (`start`, `migrate`, the fx commands, `backup` and `restore` when no server runs, `migrate-to`) first
 * takes `expense-server.lock` in it, and holds it while the database is open (a server: for its life).
 *
 * The lock file is created whole or not at all (a complete temporary file hard-linked to the name: O_EXCL's
 * semantics, and no reader ever sees it half written) and names its holder: pid, the process's start time, the
 * command. A lock whose process is gone is stale and taken over: the pid no longer runs, or it names another
 * process (another start time; or this very pid in a process that does not hold the lock, as after a container's
 * restart). `proper-lockfile`, the common library, judges staleness by the lock's age instead (a holder must touch
 * it every few seconds, or lose it while its event loop is busy; a killed one blocks starts until it ages) and
 * names no pid, so it is not used.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

export const DATA_DIR_LOCK_FILE = 'expense-server.lock';

/** What the lock file holds. */
export interface LockHolder {
  pid: number;
  /** The process's start time (Linux: clock ticks after boot, /proc/<pid>/stat), to tell a reused pid. */
  started: string | null;
  /** The command that holds it, e.g. `expense-server start` (the subcommand only: no URL, no password). */
  command: string;
  /** When it was taken (ISO 8601). */
  since: string;
  token: string;
}

export interface DataDirLock {
  readonly dataDir: string;
  readonly holder: LockHolder;
  /** Removes the lock file if it is still this lock's. */
  release(): Promise<void>;
}

/**
 * Another live process holds the directory: `code` and `hint` as migrate-to's errors (a command's own refusal,
 * never an API answer, so not in the API's error catalogue); the command prints both and exits 1.
 */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  readonly code = 'data_dir_in_use';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
    readonly hint: string,
  ) {
    super(
      `The embedded data folder ${dataDir} is in use by another process (pid ${holder.pid}, ${holder.command}, since ${holder.since}): two processes on one folder would corrupt it. Nothing was opened.`,
    );
  }
}

/** The hint when the caller gives none: for a second `start`, `migrate` or fx command. */
export const DEFAULT_IN_USE_HINT = (holder: LockHolder) =>
  `Stop the other process first (Ctrl-C, or SIGTERM to pid ${holder.pid}), or give this one a data folder of its own (--data-dir or EXPENSE_DATA_DIR); to copy the data of a running server use \`expense-server backup <file>\`, which goes through it.`;

/** Directories this process holds (by real path), with their lock's token. */
const held = new Map<string, string>();

/** Fields 3 on of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces), or null. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The process's start time (field 22 of /proc/<pid>/stat: clock ticks after boot), or null where unknown. */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

function commandName(): string {
  const subcommand = process.argv.slice(2).find((arg) => /^[a-z][a-z-]*$/.test(arg));
  const program = basename(process.argv[1] ?? process.argv0).replace(/\.(?:[cm]?js|ts)$/, '');
  const name = program === 'bin' || program === 'expense-server' ? 'expense-server' : program;
  return subcommand ? `${name} ${subcommand}` : name;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (
      typeof value.pid !== 'number' ||
      typeof value.token !== 'string' ||
      typeof value.command !== 'string' ||
      typeof value.since !== 'string' ||
      (typeof value.started !== 'string' && value.started !== null)
    )
      return undefined;
    return value as LockHolder;
  } catch {
    return undefined;
  }
}

/** Whether the holder's process still runs (and is the one that took the lock). */
function isAlive(holder: LockHolder, key: string): boolean {
  if (holder.pid === process.pid) return held.get(key) === holder.token;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(holder.pid);
  if (stat === null) return true; // no /proc (macOS): the pid is all there is to go by
  if (stat[0] === 'Z') return false; // exited, not yet reaped by its parent
  return holder.started === null || stat[19] === holder.started;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Moves a stale lock aside, if the file is still the one judged stale: a rename is atomic, and the file moved
 * is compared with the text judged; a lock another process took in between is put back.
 */
async function takeOver(file: string, judged: string): Promise<void> {
  const aside = `${file}.stale-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another process took it over first
    throw error;
  }
  try {
    if ((await readFile(aside, 'utf8')) !== judged) await link(aside, file).catch(() => {});
  } finally {
    await rm(aside, { force: true });
  }
}

/** The live holder of `dataDir`'s lock, if any (for a message; the lock itself is taken by lockDataDir). */
export async function dataDirHolder(dataDir: string): Promise<LockHolder | undefined> {
  const dir = resolve(dataDir);
  const text = await readText(join(dir, DATA_DIR_LOCK_FILE));
  const holder = text === undefined ? undefined : parseHolder(text);
  if (!holder) return undefined;
  const key = await realpath(dir).catch(() => dir);
  return isAlive(holder, key) ? holder : undefined;
}

/**
 * Takes the lock of the embedded data directory `dataDir` (created if missing), or throws DataDirInUseError
 * naming the live holder, with `hint` (the next step for this caller). In-process too: a second open of a
 * directory this process holds is refused.
 */
export async function lockDataDir(
  dataDir: string,
  hint: (holder: LockHolder) => string = DEFAULT_IN_USE_HINT,
): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const key = await realpath(dir);
  const file = join(dir, DATA_DIR_LOCK_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    started: processStartTime(process.pid),
    command: commandName(),
    since: new Date().toISOString(),
    token: randomBytes(16).toString('hex'),
  };
  const text = `${JSON.stringify(holder)}\n`;
  const partial = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.partial`;
  await writeFile(partial, text, { mode: 0o600, flag: 'wx' });
  try {
    // A few rounds: each lost one means the lock changed hands meanwhile (taken over, or released).
    for (let round = 0; round < 8; round++) {
      try {
        await link(partial, file);
        held.set(key, holder.token);
        return {
          dataDir: dir,
          holder,
          release: async () => {
            if (held.get(key) === holder.token) held.delete(key);
            const now = await readText(file);
            if (now !== undefined && parseHolder(now)?.token === holder.token)
              await rm(file, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = await readText(file);
      if (current === undefined) continue; // released meanwhile
      const other = parseHolder(current);
      if (other && isAlive(other, key)) throw new DataDirInUseError(dir, other, hint(other));
      await takeOver(file, current);
    }
    throw new Error(`The lock ${file} kept changing hands: try again.`);
  } finally {
    await rm(partial, { force: true });
  }
}
