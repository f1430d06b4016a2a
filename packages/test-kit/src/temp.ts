import { mkdtemp, rm } from 'node:fs/promises';
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
