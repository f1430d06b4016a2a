import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** packages/server */
export const SERVER_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REPO_DIR = resolve(SERVER_DIR, '..', '..');
export const RESULTS_DIR = join(REPO_DIR, 'bench-results');
export const SERVER_BIN_DIST = join(SERVER_DIR, 'dist', 'bin.js');
export const SERVER_BIN_SOURCE = join(SERVER_DIR, 'src', 'bin.ts');
export const CLI_BIN_DIST = join(REPO_DIR, 'packages', 'cli', 'dist', 'bin.js');
