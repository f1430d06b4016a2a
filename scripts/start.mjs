#!/usr/bin/env node
// `pnpm start [flags]` is `expense-server start [flags]`.
import { buildIfStale } from './build-if-stale.mjs';

// Build only what the server runs: the ES modules of the guard, the bank-file reader and the server (no CommonJS
// twins, no type declarations, no CLI); `pnpm build` makes the rest. Each is checked on its own, in that order.
const lean = ['--format', 'esm', '--no-dts'];
buildIfStale({
  bin: 'packages/sql-guard/dist/index.js',
  sources: ['packages/sql-guard/src', 'packages/sql-guard/package.json'],
  filter: '@expense/sql-guard',
  args: lean,
});
buildIfStale({
  bin: 'packages/import/dist/index.js',
  sources: ['packages/import/src', 'packages/import/package.json'],
  filter: '@expense/import',
  args: lean,
});
buildIfStale({
  bin: 'packages/server/dist/bin.js',
  sources: [
    'packages/sql-guard/src',
    'packages/import/src',
    'packages/server/src',
    'packages/server/migrations',
    'packages/wire/src',
  ],
  filter: '@expense/server',
  args: lean,
});

// `pnpm start -- --help` passes the `--` on: drop it, or commander reads every flag after it as an argument.
if (process.argv[2] === '--') process.argv.splice(2, 1);
process.argv.splice(2, 0, 'start');
await import('./expense-server.mjs');
