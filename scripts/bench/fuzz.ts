// `pnpm fuzz [count] [--seed n] [--planner-count n] [--http-count n]`: the check fuzzer (default 1,000,000 inputs),
// the planner-bomb fuzzer on PostgreSQL (default 600 statements), then the HTTP fuzzer over every route (default
// 20,000 requests). Not part of CI.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2).filter((a) => a !== '--');
const value = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const count = argv.find((a, i) => /^\d+$/.test(a) && !argv[i - 1]?.startsWith('--')) ?? '1000000';
const seed = value('seed');
const SOURCE = ['--conditions=@expense/source', '--import', 'tsx'];
const step = (cwd: string, args: string[]) =>
  spawnSync(process.execPath, [...SOURCE, ...args], {
    cwd: join(REPO, cwd),
    stdio: 'inherit',
    env: process.env,
  }).status === 0;

const check = step('packages/sql-guard', ['fuzz/check.fuzz.ts', count, ...(seed ? ['--seed', seed] : [])]);
const planner = step('packages/sql-guard', [
  'fuzz/planner.fuzz.ts',
  value('planner-count') ?? '600',
  ...(seed ? ['--seed', seed] : []),
]);
const http = step('packages/server', [
  'test-faults/fuzz-http.ts',
  '--count',
  value('http-count') ?? '20000',
  ...(seed ? ['--seed', seed] : []),
]);
process.stderr.write(
  `fuzz: check ${check ? 'ok' : 'FAILED'}, planner ${planner ? 'ok' : 'FAILED'}, http ${http ? 'ok' : 'FAILED'}\n`,
);
process.exit(check && planner && http ? 0 : 1);
