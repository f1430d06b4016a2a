import { constants } from 'node:fs';
import { access, mkdtemp, readdir, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new directory under the system's temporary directory. */
export async function tempDir(prefix = 'expense-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Removes a directory and what it holds (nothing when it is gone already). */
export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Where Linux keeps a memory file system (tmpfs) every user may write. */
const MEMORY_FS = '/dev/shm';
/** A run's directory there: this prefix, the process id of the run, a random suffix. */
const RUN_PREFIX = 'expense-test-run-';
const RUN_NAME = new RegExp(`^${RUN_PREFIX}(\\d+)-`);
/**
 * The room a whole run needs there at once: a few database directories of ~45 MB side by side, the disk-growth
 * suite's ~130 MB, a browser profile, an `npm install` of the CLI. A container's default (64 MB) is far less: the
 * run then stays on disk.
 */
const MEMORY_FS_ROOM = 2 * 1024 ** 3;

/**
 * Points TMPDIR at a new directory in memory (tmpfs), for this process and the processes it starts, when the
 * machine has one with room to spare and TMPDIR was not chosen: a run creates and removes ~150 database
 * directories of ~1,100 files each, and on ext4 that churn cost ~35 of the 80 system CPU-seconds of a PGlite-only
 * run, with kernel writeback besides (docs/testing.md). Returns the undo: TMPDIR back and the directory removed;
 * nothing to undo when it left TMPDIR alone.
 */
export async function useMemoryTmpdir(): Promise<() => Promise<void>> {
  if (process.env.TMPDIR || process.platform !== 'linux') return async () => {};
  let dir: string;
  try {
    await access(MEMORY_FS, constants.W_OK);
    await removeOrphanRuns();
    const { bavail, bsize } = await statfs(MEMORY_FS);
    if (bavail * bsize < MEMORY_FS_ROOM) return async () => {};
    dir = await mkdtemp(join(MEMORY_FS, `${RUN_PREFIX}${process.pid}-`));
  } catch {
    return async () => {};
  }
  process.env.TMPDIR = dir;
  return async () => {
    delete process.env.TMPDIR;
    await removeDir(dir);
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
};

/**
 * Removes the directories of runs whose process is gone (killed before its teardown): in memory, each would hold
 * its share of RAM until the next reboot.
 */
export async function removeOrphanRuns(): Promise<void> {
  for (const name of await readdir(MEMORY_FS).catch(() => [] as string[])) {
    const pid = Number(RUN_NAME.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) await removeDir(join(MEMORY_FS, name));
  }
}
