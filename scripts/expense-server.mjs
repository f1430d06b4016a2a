#!/usr/bin/env node
// Runs the server's command line (`pnpm expense-server <cmd>`), building the packages first when needed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'packages/server/dist/bin.js');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const sources = [
  'packages/sql-guard/src',
  'packages/server/src',
  'packages/server/migrations',
  'packages/wire/src',
]
  .map((p) => join(root, p))
  .filter(existsSync);
const stale = !existsSync(bin) || sources.some((dir) => newest(dir) > statSync(bin).mtimeMs);
if (stale) {
  process.stderr.write('expense: building the packages first (pnpm build)...\n');
  const build = spawnSync('pnpm', ['--filter', '@expense/server...', 'run', 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
const child = spawn(process.execPath, [bin, ...args], { stdio: 'inherit' });
// The server stops gracefully on SIGINT/SIGTERM; pass them on and leave with its exit code.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
