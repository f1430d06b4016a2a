import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './paths.js';

/** Writes bench-results/<name>.json (gitignored) and returns its path. */
export function writeResult(name: string, value: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** `--name value` from argv, or the fallback. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}
