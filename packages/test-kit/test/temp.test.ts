import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { useMemoryTmpdir } from '../src/temp.js';

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
});
