// `pnpm bench`: builds, runs every benchmark one after the other (never two at once: they share the cores), writes
// bench-results/*.json and regenerates docs/benchmarks.md with its charts.
//   pnpm bench [-- --only guard,server,import,fx,wide,loop,history,mcp,cli] [--duration 10] [--profile] [--no-build]
//              [--rounds 3] [--engines postgres] [--workload account]   (server part: interleaved rounds, which engines, which read: packages/server/bench/workload.ts)
//              [--mcp-rounds 300]                   (mcp part: requests of each kind)
//              [--cli-rounds 15]                    (cli part: interleaved rounds of process starts)
//   pnpm bench --only export [--entries 1000000]
//              (the export's memory, issue 40: not in the default parts, minutes and a million rows loaded;
//               packages/server/bench/export-memory.ts)
//   pnpm bench --scale [--workspaces 10000] [--entries 10000000] [--rounds 7]
//              (only the scale benchmark, issue 42: one workspace among many beside it alone; packages/server/bench/scale.ts;
//               with --only, the parts named and the scale benchmark)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS = join(REPO, 'bench-results');
const argv = process.argv.slice(2);
const value = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const scale = argv.includes('--scale');
const only = (value('only') ?? (scale ? '' : 'guard,server,import,fx,wide,loop,history,mcp,cli'))
  .split(',')
  .filter(Boolean);
if (scale) only.push('scale');
/** The machine's gauge beside every result of the run: a slow hour reads as a slow hour. */
const gauge = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} on ${cpus().length} cores`;
process.stderr.write(`== start: ${gauge()}\n`);
const SOURCE = ['--conditions=@expense/source', '--import', 'tsx'];
mkdirSync(RESULTS, { recursive: true });

function run(label: string, command: string, args: string[], cwd: string, capture?: string): boolean {
  process.stderr.write(`\n== ${label}: ${command} ${args.join(' ')}\n`);
  const r = spawnSync(command, args, {
    cwd,
    env: process.env,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
  });
  if (capture) {
    process.stdout.write(r.stdout ?? '');
    writeFileSync(join(RESULTS, capture), r.stdout ?? '');
  }
  if (r.status !== 0) process.stderr.write(`== ${label} failed (${r.status ?? r.signal})\n`);
  return r.status === 0;
}

const results: Record<string, boolean> = {};
if (!argv.includes('--no-build')) results.build = run('build', 'pnpm', ['build'], REPO);
// Measure what users run: the built server (the CLI is always the built one).
if (results.build !== false) process.env.EXPENSE_PROOF_BUILD = 'dist';
const server = join(REPO, 'packages', 'server');
const guard = join(REPO, 'packages', 'sql-guard');
if (only.includes('guard')) {
  results.guard = existsSync(join(guard, 'bench', 'check.bench.ts'))
    ? run('guard', process.execPath, [...SOURCE, 'bench/check.bench.ts'], guard, 'guard.txt')
    : false;
  // The guard's benchmark writes bench-results/check.json in its own package.
  const written = join(guard, 'bench-results', 'check.json');
  if (existsSync(written)) copyFileSync(written, join(RESULTS, 'guard.json'));
}
if (only.includes('server')) {
  const extra = [
    ...(value('duration') ? ['--duration', value('duration')!] : []),
    ...(value('rounds') ? ['--rounds', value('rounds')!] : []),
    ...(value('engines') ? ['--engines', value('engines')!] : []),
    ...(value('workload') ? ['--workload', value('workload')!] : []),
    ...(argv.includes('--profile') ? ['--profile'] : []),
  ];
  results.server = run('server', process.execPath, [...SOURCE, 'bench/sql-throughput.ts', ...extra], server);
}
if (only.includes('import'))
  results.import = run('import', process.execPath, [...SOURCE, 'bench/import.ts'], server);
if (only.includes('wide')) {
  results.wide = run(
    'wide',
    process.execPath,
    [...SOURCE, 'bench/wide-result.ts'],
    server,
    'wide-result.txt',
  );
}
if (only.includes('loop')) {
  results.loop = run('loop', process.execPath, [...SOURCE, 'bench/event-loop.ts'], server, 'event-loop.txt');
}
if (only.includes('fx') && existsSync(join(server, 'bench', 'fx-rebuild.ts'))) {
  results.fx = run('fx', process.execPath, [...SOURCE, 'bench/fx-rebuild.ts'], server, 'fx-rebuild.txt');
}
if (only.includes('history')) {
  const h = ['bench/change-history.ts'];
  results.history = run('history', process.execPath, [...SOURCE, ...h], server, 'change-history.txt');
}
if (only.includes('mcp')) {
  const m = ['bench/mcp-query.ts', ...(value('mcp-rounds') ? ['--rounds', value('mcp-rounds')!] : [])];
  results.mcp = run('mcp', process.execPath, [...SOURCE, ...m], server, 'mcp-query.txt');
}
if (only.includes('cli')) {
  const c = ['bench/cli-start.ts', ...(value('cli-rounds') ? ['--rounds', value('cli-rounds')!] : [])];
  results.cli = run(
    'cli',
    process.execPath,
    [...SOURCE, ...c],
    join(REPO, 'packages', 'cli'),
    'cli-start.txt',
  );
}
if (only.includes('export')) {
  const e = ['bench/export-memory.ts', ...(value('entries') ? ['--entries', value('entries')!] : [])];
  results.export = run('export', process.execPath, [...SOURCE, ...e], server, 'export-memory.txt');
}
if (only.includes('scale')) {
  const sizes = ['workspaces', 'entries', 'rounds'].flatMap((name) =>
    value(name) ? [`--${name}`, value(name)!] : [],
  );
  results.scale = run(
    'scale',
    process.execPath,
    [...SOURCE, 'bench/scale.ts', ...sizes],
    server,
    'scale.txt',
  );
}
run('report', process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'bench', 'report.ts')], REPO);
process.stderr.write(`\n== end: ${gauge()}\n`);
process.stderr.write(
  `\n${Object.entries(results)
    .map(([k, ok]) => `${k}: ${ok ? 'ok' : 'FAILED'}`)
    .join(', ')}\n`,
);
process.exit(Object.values(results).every(Boolean) ? 0 : 1);
