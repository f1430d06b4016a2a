/** Backup files of the embedded engine: names sortable by time, atomic writes, rotation (docs/operations.md). */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const PREFIX = 'expense-backup-';
const SUFFIX = '.tar.gz';
const SCHEDULED = /^expense-backup-\d{8}T\d{6}\d{3}Z\.tar\.gz$/;

/** `expense-backup-20260501T093000123Z.tar.gz`: the UTC time, so names sort as the times do. */
export function backupFileName(at: Date = new Date()): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${PREFIX}${stamp}${SUFFIX}`;
}

/** Writes the file through a temporary name beside it and a rename: a reader never sees half a backup. */
export async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/** The scheduled backups in `dir`, oldest first. */
export async function scheduledBackups(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => SCHEDULED.test(name)).sort();
}

/** Deletes all but the newest `keep` scheduled backups in `dir`; answers the names deleted. */
export async function rotateBackups(dir: string, keep: number): Promise<string[]> {
  const names = await scheduledBackups(dir);
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) await rm(join(dir, name), { force: true });
  return old;
}
