// Builds a package from the clone when its built entry is missing or older than any of its sources.
// Shared by the launchers `pnpm expense-server` / `pnpm start` and `pnpm expense`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(path) {
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  let latest = 0;
  const dir = path;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    latest = Math.max(latest, newest(join(dir, entry.name)));
  }
  return latest;
}

/** Whether `bin` (relative to the root) is missing or older than one of `sources` (files or folders). */
export function isStale(bin, sources) {
  const built = join(root, bin);
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return sources
    .map((p) => join(root, p))
    .filter(existsSync)
    .some((dir) => newest(dir) > builtAt);
}

/**
 * Runs `pnpm --filter <filter> run <script> <args>` (default `build`) when `bin` is stale; exits with the
 * build's status when it fails. Returns the absolute path of `bin`. The build's output goes to stderr, so a
 * launcher's stdout stays clean.
 */
export function buildIfStale({ bin, sources, filter, script = 'build', args = [] }) {
  if (isStale(bin, sources)) {
    process.stderr.write(
      `expense: building ${filter} first (its build is missing or older than its sources)...\n`,
    );
    const build = spawnSync('pnpm', ['--filter', filter, 'run', script, ...args], {
      cwd: root,
      stdio: ['ignore', process.stderr, 'inherit'],
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  return join(root, bin);
}
