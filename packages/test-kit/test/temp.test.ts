import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, removeOrphanRuns, useMemoryTmpdir } from '../src/temp.js';

// The run's TMPDIR (the global setup's) is put back after each test.
const chosen = process.env.TMPDIR;
afterEach(() => {
  if (chosen === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = chosen;
});

describe('useMemoryTmpdir', () => {
  it('leaves a TMPDIR that was chosen alone', async () => {
    process.env.TMPDIR = '/tmp';
    const undo = await useMemoryTmpdir();
    expect(tmpdir()).toBe('/tmp');
    await undo();
    expect(process.env.TMPDIR).toBe('/tmp');
  });

  it('without one, moves to a new directory in /dev/shm when it has room, and the undo removes it', async () => {
    delete process.env.TMPDIR;
    const room = await statfs('/dev/shm').then(
      ({ bavail, bsize }) => bavail * bsize,
      () => 0,
    );
    const undo = await useMemoryTmpdir();
    const moved = process.env.TMPDIR;
    if (process.platform !== 'linux' || room < 2 * 1024 ** 3) {
      expect(moved).toBeUndefined();
      return;
    }
    expect(moved).toMatch(/^\/dev\/shm\/expense-test-run-/);
    expect(tmpdir()).toBe(moved);
    expect(existsSync(String(moved))).toBe(true);
    await undo();
    expect(process.env.TMPDIR).toBeUndefined();
    expect(existsSync(String(moved))).toBe(false);
  });

  it("removes the directories of runs whose process is gone, and keeps a living run's", async () => {
    if (process.platform !== 'linux' || !existsSync('/dev/shm')) return;
    const gone = spawnSync(process.execPath, ['-e', '0']).pid; // exited: no process has that id now
    const orphan = `/dev/shm/expense-test-run-${gone}-orphan`;
    const living = `/dev/shm/expense-test-run-${process.pid}-living`;
    await mkdir(orphan, { recursive: true });
    await mkdir(living, { recursive: true });
    try {
      await removeOrphanRuns();
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(living)).toBe(true);
    } finally {
      await removeDir(orphan);
      await removeDir(living);
    }
  });
});
