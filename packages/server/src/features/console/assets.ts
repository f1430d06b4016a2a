import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function moduleDir(): string {
  // CJS bundle: __dirname; ESM (bundle, vitest, tsx): import.meta.url.
  return typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
}

/** packages/server/console (the console's own JS and CSS), found from dist/ (built) or src/features/console/ (source). */
export function consoleAssetsDirectory(): string {
  let dir = moduleDir();
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, 'console');
    if (existsSync(join(candidate, 'app.js'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`No console assets directory found above ${moduleDir()}.`);
}

/** The files of pinned packages the console loads, by the name it loads them under. */
export const VENDOR_FILES = ['preact.mjs', 'htm.mjs'] as const;

/**
 * The `dist` folders in node_modules the vendor files are served from: Preact and htm as ES modules (the
 * console uses no file with a bare import, so no import map is needed).
 */
export function vendorRoots(): string[] {
  const require = createRequire(join(moduleDir(), 'noop.js'));
  return ['preact', 'htm'].map((name) => dirname(require.resolve(name)));
}
