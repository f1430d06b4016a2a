#!/usr/bin/env node
// `pnpm expense <args>` from the clone: the CLI, built first when its build is missing or stale.
import { spawn } from 'node:child_process';
import { buildIfStale } from './build-if-stale.mjs';

const bin = buildIfStale({
  bin: 'packages/cli/dist/bin.js',
  sources: ['packages/cli/src', 'packages/cli/package.json', 'packages/wire/src'],
  filter: '@expense/cli',
});
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
// pnpm runs scripts in the repository root; relative paths (`expense import ./bank.csv`) mean the caller's
// directory, which pnpm passes as INIT_CWD.
const child = spawn(process.execPath, [bin, ...args], {
  stdio: 'inherit',
  cwd: process.env.INIT_CWD || process.cwd(),
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
