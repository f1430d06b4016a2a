import { readFileSync } from 'node:fs';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Reads a JSON file; undefined when it does not exist. Read synchronously: the files are small, and every
 * command reads one or two of them before its first request, where fs/promises costs several times more CPU.
 */
export async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof SyntaxError) throw new Error(`${path} is not valid JSON: ${error.message}`);
    throw error;
  }
}

/**
 * Writes JSON atomically (a temporary file in the same directory, then rename) with the given mode, so a
 * crash never leaves half a file and a secret never sits in a file with wider permissions.
 */
export async function writeJson(path: string, value: unknown, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { mode, flag: 'wx' });
  await chmod(temp, mode);
  await rename(temp, path);
}
