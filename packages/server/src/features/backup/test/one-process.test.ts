// Issue 40: one process per embedded data folder (platform/storage/data-dir-lock.ts). Real processes on real
// folders: a second `expense-server start` on a served folder is refused with data_dir_in_use naming the first's
// pid, and the first keeps serving; `restore` is refused while it serves, and an offline `backup` while another
// process (here this test's own) holds the folder; a lock left by a process that is gone is taken over by `start`.
// In one process: a second open of a held folder is refused, a lock copied with a folder (this pid, not held) is
// stale, and so is a live pid whose process started at another time than the lock says (a reused pid).
import { execFile, spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { copyMigratedPglite, removeDir, tempDir } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_BIN_SOURCE, SERVER_DIR } from '../../../../bench/lib/paths.js';
import { startServerProcess } from '../../../../bench/lib/server-process.js';
import {
  DATA_DIR_LOCK_FILE,
  DataDirInUseError,
  type LockHolder,
  lockDataDir,
  processStartTime,
} from '../../../platform/storage/data-dir-lock.js';
import { openDatabase } from '../../../platform/storage/index.js';

async function server(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@expense/source', '--import', 'tsx', SERVER_BIN_SOURCE, ...args],
      {
        cwd: SERVER_DIR,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          EXPENSE_HOST: '127.0.0.1',
          EXPENSE_PORT: '0',
          ...env,
        },
      },
    );
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** The pid of a process that has run and exited (so no process has it, until the system reuses it). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const readHolder = async (dir: string) =>
  JSON.parse(await readFile(join(dir, DATA_DIR_LOCK_FILE), 'utf8')) as LockHolder;

describe('one process per embedded data folder', () => {
  let root: string;
  beforeAll(async () => {
    root = await tempDir('expense-lock-');
  });
  afterAll(async () => removeDir(root));

  it('refuses a second start and a restore while a server serves; the first keeps serving', {
    timeout: 240_000,
  }, async () => {
    const dataDir = join(root, 'served');
    await copyMigratedPglite(dataDir);
    const first = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: { EXPENSE_DATA_DIR: dataDir },
    });
    try {
      expect(await readHolder(dataDir)).toMatchObject({ pid: first.pid, command: 'expense-server start' });

      const second = await server(['start'], { EXPENSE_DATA_DIR: dataDir });
      expect(second.code, second.out).toBe(1);
      expect(second.out).toMatch(/\(data_dir_in_use\)/);
      expect(second.out).toContain(`pid ${first.pid}, expense-server start`);
      expect(second.out).toMatch(
        new RegExp(`hint: Stop the other process first .*SIGTERM to pid ${first.pid}`),
      );
      expect(second.out).not.toMatch(/serving/);

      const backupFile = join(root, 'served.tar.gz');
      const backup = await server(['backup', backupFile], { EXPENSE_DATA_DIR: dataDir });
      expect(backup.out).toMatch(/backup of the running server/);
      const restore = await server(['restore', backupFile, '--replace'], { EXPENSE_DATA_DIR: dataDir });
      expect(restore.code, restore.out).toBe(1);
      expect(restore.out).toMatch(/\(data_dir_in_use\)/);
      expect(restore.out).toMatch(new RegExp(`hint: Stop the server first .*SIGTERM to pid ${first.pid}`));

      // The first still serves, and still holds the folder.
      const health = await fetch(`${first.origin}/v1`);
      expect(health.status).toBe(200);
      expect((await readHolder(dataDir)).pid).toBe(first.pid);
    } finally {
      expect(await first.stop()).toBe('exit 0');
    }
    await expect(readFile(join(dataDir, DATA_DIR_LOCK_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over a lock whose process is gone', { timeout: 240_000 }, async () => {
    const dataDir = join(root, 'stale');
    await copyMigratedPglite(dataDir);
    const gone = await deadPid();
    await writeFile(
      join(dataDir, DATA_DIR_LOCK_FILE),
      `${JSON.stringify({ pid: gone, started: null, command: 'expense-server start', since: '2026-01-01T00:00:00.000Z', token: 'killed' })}\n`,
    );
    const started = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: { EXPENSE_DATA_DIR: dataDir },
    });
    try {
      const holder = await readHolder(dataDir);
      expect(holder.pid).toBe(started.pid);
      expect(holder.token).not.toBe('killed');
    } finally {
      await started.stop();
    }
  });

  it('refuses an offline backup while another process holds the folder', { timeout: 120_000 }, async () => {
    const dataDir = join(root, 'held');
    await copyMigratedPglite(dataDir);
    const lock = await lockDataDir(dataDir);
    try {
      const backup = await server(['backup', join(root, 'held.tar.gz')], { EXPENSE_DATA_DIR: dataDir });
      expect(backup.code, backup.out).toBe(1);
      expect(backup.out).toMatch(/\(data_dir_in_use\)/);
      expect(backup.out).toContain(`pid ${process.pid}`);
      expect(backup.out).toMatch(
        /hint: If it is a server that is starting, run the backup again once it serves/,
      );
    } finally {
      await lock.release();
    }
    const backup = await server(['backup', join(root, 'held.tar.gz')], { EXPENSE_DATA_DIR: dataDir });
    expect(backup.out).toMatch(/no server running on it/);
    expect(backup.code).toBe(0);
  });

  it('a live pid holds the lock only while it names the same process (start time)', async () => {
    const dataDir = join(root, 'reused-pid');
    const other = process.ppid; // a live process other than this one
    const write = (started: string | null) =>
      writeFile(
        join(dataDir, DATA_DIR_LOCK_FILE),
        `${JSON.stringify({ pid: other, started, command: 'expense-server start', since: '2026-01-01T00:00:00.000Z', token: 'other' })}\n`,
      );
    const lock = await lockDataDir(dataDir);
    await lock.release();
    await write(processStartTime(other));
    const refused = await lockDataDir(dataDir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as DataDirInUseError).message).toContain(`pid ${other}, expense-server start`);
    expect((refused as DataDirInUseError).code).toBe('data_dir_in_use');
    // The same pid with another start time is another process now: the lock is stale.
    await write('1');
    const taken = await lockDataDir(dataDir);
    expect((await readHolder(dataDir)).token).toBe(taken.holder.token);
    await taken.release();
  });

  it('in one process: a second open is refused; a copied lock of this pid is stale', async () => {
    const dataDir = join(root, 'in-process');
    const db = await openDatabase({ dataDir, migrate: false });
    try {
      const again = await openDatabase({ dataDir, migrate: false }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(DataDirInUseError);
      expect((again as DataDirInUseError).holder).toMatchObject({
        pid: process.pid,
        started: processStartTime(process.pid),
      });
      // A copy of the folder carries the lock file, which names this process: not a holder of the copy.
      const copy = join(root, 'in-process-copy');
      await cp(dataDir, copy, { recursive: true });
      expect((await readHolder(copy)).pid).toBe(process.pid);
      const lock = await lockDataDir(copy);
      await lock.release();
    } finally {
      await db.close();
    }
    const reopened = await openDatabase({ dataDir, migrate: false });
    await reopened.close();
  });
});
