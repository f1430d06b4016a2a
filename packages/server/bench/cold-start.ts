// Cold start of the embedded default (PGlite) with an existing data directory: the time from spawning the built
// server to the first 200 on GET /v1/healthz. The first start creates and migrates the directory (not measured);
// each of the next --runs starts opens it again.
//
//   node --conditions=@expense/source --import tsx bench/cold-start.ts [--runs 5] [--profile]
// --profile writes CPU profiles of each thread (main and the database worker) to bench-results/cold-start-prof/.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { apiPath } from './lib/http.js';
import { RESULTS_DIR } from './lib/paths.js';
import { arg, log } from './lib/results.js';
import { startServerProcess } from './lib/server-process.js';

const RUNS = Math.max(1, Number(arg('runs', '5')));
const PROFILE = process.argv.includes('--profile');

async function healthy(origin: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${origin}${apiPath(ROUTE_PATHS.health)}`).catch(() => undefined);
    if (response?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'expense-cold-start-'));
const env = { EXPENSE_DATA_DIR: dataDir };
try {
  const first = await startServerProcess({ env, build: 'dist' });
  await healthy(first.origin);
  await first.stop();
  const times: number[] = [];
  const profileDir = join(RESULTS_DIR, 'cold-start-prof');
  if (PROFILE) mkdirSync(profileDir, { recursive: true });
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const server = await startServerProcess({
      env,
      build: 'dist',
      ...(PROFILE ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
    });
    await healthy(server.origin);
    const ms = performance.now() - start;
    times.push(ms);
    log(`start ${i + 1}: ${Math.round(ms)} ms (load average ${loadavg()[0]?.toFixed(2)})`);
    await server.stop();
  }
  const sorted = [...times].sort((a, b) => a - b);
  log(
    `cold start, existing data directory: median ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms, ` +
      `min ${Math.round(sorted[0] ?? 0)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
