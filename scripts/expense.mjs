#!/usr/bin/env node
// `pnpm expense <args>` from the clone: the CLI, built first when its build is missing or stale.
// It runs in this process (no second Node start-up): the check stats the sources' files, and a stale build
// rebuilds the executable alone (no library bundles, no type declarations).
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

// The CLI bundles the bank-file reader from its build.
buildIfStale({
  bin: 'packages/import/dist/index.js',
  sources: ['packages/import/src', 'packages/import/package.json'],
  filter: '@expense/import',
});
const bin = buildIfStale({
  bin: 'packages/cli/dist/bin.js',
  sources: [
    'packages/cli/src',
    'packages/cli/package.json',
    'packages/cli/tsup.config.ts',
    'packages/import/src',
    'packages/wire/src',
    'packages/mcp/src',
  ],
  filter: '@expense/cli',
  script: 'build:bin',
});
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
// pnpm runs scripts in the repository root; relative paths (`expense import ./bank.csv`) mean the caller's
// directory, which pnpm passes as INIT_CWD.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
process.argv = [process.argv[0], bin, ...args];
await import(pathToFileURL(bin).href);
