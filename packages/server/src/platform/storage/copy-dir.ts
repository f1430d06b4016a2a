import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * Copies a directory tree of plain files (a PGlite data directory) into `to`, which may exist. The files are
 * copied concurrently (fs.cp copies one at a time: ~3x slower on the ~1,100 files of a data directory).
 */
export async function copyDirectory(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const target = (entry: { parentPath: string; name: string }) =>
    join(to, relative(from, entry.parentPath), entry.name);
  await mkdir(to, { recursive: true });
  for (const entry of entries) if (entry.isDirectory()) await mkdir(target(entry), { recursive: true });
  await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => copyFile(join(entry.parentPath, entry.name), target(entry))),
  );
}
