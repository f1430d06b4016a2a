#!/usr/bin/env node
// Runs the server's command line (`pnpm expense-server <cmd>`), building the packages first when needed.
import { spawn } from 'node:child_process';
import { buildIfStale } from './build-if-stale.mjs';

const bin = buildIfStale({
  bin: 'packages/server/dist/bin.js',
  sources: [
    'packages/sql-guard/src',
    'packages/import/src',
    'packages/server/src',
    'packages/server/migrations',
    'packages/wire/src',
    'packages/mcp/src',
  ],
  filter: '@expense/server...',
});
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
const child = spawn(process.execPath, [bin, ...args], { stdio: 'inherit' });
// The server stops gracefully on SIGINT/SIGTERM; pass them on and leave with its exit code.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
