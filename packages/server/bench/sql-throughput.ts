// /v1/sql/query throughput and latency with autocannon (20 connections) on PostgreSQL beside the floor (a bare
// Fastify + pg endpoint running the same SELECT in one round trip) and through PgBouncer in transaction mode
// (DATABASE_URL = the pooler, DATABASE_DIRECT_URL = the server; skipped when pgbouncer is not installed), and
// the embedded default's (PGlite) throughput; server RSS sampled throughout. The per-key limiter stays in the path, with limits raised so that
// one key is not capped at 10/s (EXPENSE_RATE_PER_SECOND / EXPENSE_RATE_PER_DAY below).
//
//   node --conditions=@expense/source --import tsx bench/sql-throughput.ts [--duration 10] [--connections 20]
//        [--engines postgres,pglite] [--rounds 1] [--workload latest|account|month|month-date] [--profile]
//        (writes bench-results/server.json, or server-<workload>.json; the workloads are in workload.ts)
// With --rounds n the PostgreSQL candidates (floor, direct, through PgBouncer) are measured n times each, interleaved
// (the order rotating every round) for --duration seconds each, so that a machine whose speed drifts (shared cores)
// weighs on all of them alike; each candidate's figures then combine its rounds.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freshPostgres,
  INSTALL_HINT,
  median,
  type PgBouncer,
  pgbouncerBinary,
  startPgBouncer,
} from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import autocannon, { type Result } from 'autocannon';
import { type CpuPerRequest, cpuMeter } from './lib/cpu.js';
import { summarizeProfiles } from './lib/cpuprofile.js';
import { apiPath, callRoute } from './lib/http.js';
import { machineInfo } from './lib/machine.js';
import { RESULTS_DIR, SERVER_DIR } from './lib/paths.js';
import { arg, log, writeResult } from './lib/results.js';
import { RssSampler, type RssSummary, round } from './lib/rss.js';
import { openForSeeding, seed } from './lib/seed.js';
import { startServerProcess } from './lib/server-process.js';
import { workloadNamed } from './workload.js';

const DURATION = Number(arg('duration', '10'));
const CONNECTIONS = Number(arg('connections', '20'));
const ENGINES = arg('engines', 'postgres,pglite').split(',');
const PROFILE = process.argv.includes('--profile');
const ROUNDS = Math.max(1, Number(arg('rounds', '1')));
const WORKLOAD_NAME = arg('workload', 'latest');
const WORKLOAD = workloadNamed(WORKLOAD_NAME);
const QUERY_SQL = WORKLOAD.sql;
// The in-flight limits (2 per key, 4 per user by default) would answer most of 20 concurrent connections of one key
// with 429: raised above the connection count, still consulted on every request like the rate limits.
const HIGH_LIMITS = {
  EXPENSE_RATE_PER_SECOND: '1000000',
  EXPENSE_RATE_PER_DAY: '1000000000',
  EXPENSE_MAX_INFLIGHT_PER_KEY: '64',
  EXPENSE_MAX_INFLIGHT_PER_USER: '64',
};
const ROWS_PER_WORKSPACE = WORKLOAD.rowsPerWorkspace;
/** PgBouncer's server connections for the pooled run (its default_pool_size default). */
const POOLER_POOL_SIZE = 20;

export interface CannonSummary {
  label: string;
  connections: number;
  durationS: number;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU µs per request by process (see lib/cpu.ts). */
  cpuUs: CpuPerRequest;
}

/** One candidate's interleaved rounds as one summary: throughput over all its requests, median latencies and CPU. */
function combine(rounds: CannonSummary[]): CannonSummary {
  const first = rounds[0]!;
  if (rounds.length === 1) return first;
  const sum = (pick: (s: CannonSummary) => number) => rounds.reduce((n, s) => n + pick(s), 0);
  const durationS = sum((s) => s.durationS);
  return {
    ...first,
    durationS,
    reqPerSec: round(sum((s) => s.requests) / durationS, 0),
    p50Ms: median(rounds.map((s) => s.p50Ms)),
    p90Ms: median(rounds.map((s) => s.p90Ms)),
    p99Ms: median(rounds.map((s) => s.p99Ms)),
    maxMs: Math.max(...rounds.map((s) => s.maxMs)),
    requests: sum((s) => s.requests),
    ok2xx: sum((s) => s.ok2xx),
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
    timeouts: sum((s) => s.timeouts),
    cpuUs: {
      server: median(rounds.map((s) => s.cpuUs.server)),
      postgres: median(rounds.map((s) => s.cpuUs.postgres)),
      loadGenerator: median(rounds.map((s) => s.cpuUs.loadGenerator)),
    },
  };
}

function summarize(label: string, r: Result, cpuUs: CpuPerRequest): CannonSummary {
  return {
    label,
    connections: CONNECTIONS,
    durationS: r.duration,
    reqPerSec: round(r.requests.average, 0),
    p50Ms: r.latency.p50,
    p90Ms: r.latency.p90,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    requests: r.requests.total,
    ok2xx: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    cpuUs,
  };
}

async function cannon(
  label: string,
  target: { url: string; pid: number },
  headers: Record<string, string>,
  duration: number,
) {
  const { url } = target;
  const cpu = cpuMeter(target.pid);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ sql: QUERY_SQL }),
    timeout: 30,
  });
  const s = summarize(label, result, cpu.per(result.requests.total));
  log(
    `  ${label}: ${s.reqPerSec} req/s, p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms, non2xx ${s.non2xx}, errors ${s.errors}; ` +
      `CPU µs/request: server ${s.cpuUs.server}, PostgreSQL ${s.cpuUs.postgres}, load generator ${s.cpuUs.loadGenerator}`,
  );
  return s;
}

/** Starts the floor process and resolves with its origin. */
async function startFloor(databaseUrl: string, workspaceId: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(SERVER_DIR, 'bench', 'floor-server.ts')], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      FLOOR_DATABASE_URL: databaseUrl,
      FLOOR_WORKSPACE_ID: workspaceId,
      FLOOR_WORKLOAD: WORKLOAD_NAME,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      const m = /serving (http:\/\/\S+)/.exec(c.toString());
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`floor exited ${code}`)));
  });
  return {
    origin,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

async function profileDir(name: string): Promise<string[]> {
  if (!PROFILE) return [];
  const dir = join(RESULTS_DIR, 'profiles', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

async function assertServes(origin: string, key: string): Promise<void> {
  const res = await callRoute(origin, ROUTE_PATHS.sqlQuery, { key, body: { sql: QUERY_SQL } });
  if (res.status !== 200 || !(res.body?.data?.statements?.[0]?.returnedRowCount > 0)) {
    throw new Error(
      `the server does not answer the benchmark query: ${res.status} ${res.text.slice(0, 300)}`,
    );
  }
}

async function postgresRun() {
  const db = await freshPostgres({ prefix: 'expense_bench' });
  try {
    const seeding = await openForSeeding({ databaseUrl: db.url });
    const keys = await seed(seeding, { users: 4, rowsPerWorkspace: ROWS_PER_WORKSPACE });
    await seeding.close();
    const key = keys[0]!;
    const floor = await startFloor(db.url, key.workspaceIds[0]!);
    const nodeArgs = await profileDir('postgres');
    const server = await startServerProcess({ env: { DATABASE_URL: db.url, ...HIGH_LIMITS }, nodeArgs });
    let bouncer: PgBouncer | undefined;
    let pooledServer: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    if (pgbouncerBinary()) {
      bouncer = await startPgBouncer({ poolSize: POOLER_POOL_SIZE });
      pooledServer = await startServerProcess({
        env: {
          DATABASE_URL: bouncer.urlOf(new URL(db.url).pathname.slice(1)),
          DATABASE_DIRECT_URL: db.url,
          ...HIGH_LIMITS,
        },
      });
    } else {
      log(`PostgreSQL through PgBouncer: skipped, pgbouncer is not installed; ${INSTALL_HINT}`);
    }
    try {
      await assertServes(server.origin, key.apiKey);
      if (pooledServer) await assertServes(pooledServer.origin, key.apiKey);
      const sqlTarget = { url: `${server.origin}${apiPath(ROUTE_PATHS.sqlQuery)}`, pid: server.pid };
      const floorTarget = { url: `${floor.origin}/floor/query`, pid: floor.pid };
      const pooledTarget = pooledServer && {
        url: `${pooledServer.origin}${apiPath(ROUTE_PATHS.sqlQuery)}`,
        pid: pooledServer.pid,
      };
      const auth = { authorization: `ApiKey ${key.apiKey}` };
      log('PostgreSQL: warm-up');
      await cannon('floor warm-up', floorTarget, {}, 3);
      await cannon('server warm-up', sqlTarget, auth, 3);
      if (pooledTarget) await cannon('server through PgBouncer warm-up', pooledTarget, auth, 3);
      log(`PostgreSQL: measured${ROUNDS > 1 ? `, ${ROUNDS} interleaved rounds` : ''}`);
      const candidates = [
        { key: 'floor', label: 'floor (Fastify + pg, one round trip)', target: floorTarget, headers: {} },
        { key: 'server', label: '/v1/sql/query on PostgreSQL', target: sqlTarget, headers: auth },
        ...(pooledTarget
          ? [
              {
                key: 'pooled',
                label: '/v1/sql/query through PgBouncer (transaction mode)',
                target: pooledTarget,
                headers: auth,
              },
            ]
          : []),
      ];
      const rounds: Record<string, CannonSummary[]> = { floor: [], server: [], pooled: [] };
      const rss = new RssSampler(server.pid, 250);
      for (let r = 0; r < ROUNDS; r++) {
        const order = [
          ...candidates.slice(r % candidates.length),
          ...candidates.slice(0, r % candidates.length),
        ];
        for (const c of order) rounds[c.key]!.push(await cannon(c.label, c.target, c.headers, DURATION));
      }
      const memory = rss.stop();
      const floorResult = combine(rounds.floor!);
      const serverResult = combine(rounds.server!);
      const pooledResult = rounds.pooled!.length > 0 ? combine(rounds.pooled!) : undefined;
      if (ROUNDS > 1) {
        log(
          `  combined: floor ${floorResult.reqPerSec}, direct ${serverResult.reqPerSec}${pooledResult ? `, pooled ${pooledResult.reqPerSec}` : ''} req/s; ` +
            `per round direct/floor ${rounds.server!.map((s, i) => round(s.reqPerSec / rounds.floor![i]!.reqPerSec, 2)).join(', ')}` +
            (pooledResult
              ? `; pooled/direct ${rounds.pooled!.map((s, i) => round(s.reqPerSec / rounds.server![i]!.reqPerSec, 2)).join(', ')}`
              : ''),
        );
      }
      return { floor: floorResult, server: serverResult, memory, pooled: pooledResult };
    } finally {
      await server.stop();
      await pooledServer?.stop();
      await bouncer?.stop();
      await floor.stop();
    }
  } finally {
    await db.drop();
  }
}

async function pgliteRun(): Promise<{ server: CannonSummary; memory: RssSummary }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'expense-bench-pglite-'));
  try {
    const seeding = await openForSeeding({ dataDir });
    const keys = await seed(seeding, { users: 4, rowsPerWorkspace: ROWS_PER_WORKSPACE });
    await seeding.close();
    const nodeArgs = await profileDir('pglite');
    const server = await startServerProcess({ env: { EXPENSE_DATA_DIR: dataDir, ...HIGH_LIMITS }, nodeArgs });
    try {
      const key = keys[0]!;
      await assertServes(server.origin, key.apiKey);
      const target = { url: `${server.origin}${apiPath(ROUTE_PATHS.sqlQuery)}`, pid: server.pid };
      const auth = { authorization: `ApiKey ${key.apiKey}` };
      log('PGlite: warm-up');
      await cannon('pglite warm-up', target, auth, 3);
      log('PGlite: measured');
      const rss = new RssSampler(server.pid, 250);
      const result = await cannon('/v1/sql/query on PGlite (embedded)', target, auth, DURATION);
      return { server: result, memory: rss.stop() };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const machine = await machineInfo();
const postgres = ENGINES.includes('postgres') ? await postgresRun() : undefined;
const pglite = ENGINES.includes('pglite') ? await pgliteRun() : undefined;
const profiles = PROFILE
  ? Object.fromEntries(ENGINES.map((e) => [e, summarizeProfiles(join(RESULTS_DIR, 'profiles', e))] as const))
  : undefined;
const result = {
  machine,
  command: `node bench/sql-throughput.ts --duration ${DURATION} --connections ${CONNECTIONS}${ROUNDS > 1 ? ` --rounds ${ROUNDS}` : ''}`,
  rounds: ROUNDS,
  workload: WORKLOAD_NAME,
  sql: QUERY_SQL,
  rowsPerWorkspace: ROWS_PER_WORKSPACE,
  limits: HIGH_LIMITS,
  postgres: postgres && {
    ...postgres,
    ratioToFloor: round(postgres.server.reqPerSec / postgres.floor.reqPerSec, 2),
    ...(postgres.pooled && {
      poolerPoolSize: POOLER_POOL_SIZE,
      pooledRatioToDirect: round(postgres.pooled.reqPerSec / postgres.server.reqPerSec, 2),
      pooledRatioToFloor: round(postgres.pooled.reqPerSec / postgres.floor.reqPerSec, 2),
    }),
    memory: { ...postgres.memory, samples: postgres.memory.samples },
  },
  pglite,
  profiles,
};
// The default workload's file is the one the report reads; another one's is named after it.
log(`wrote ${writeResult(WORKLOAD_NAME === 'latest' ? 'server' : `server-${WORKLOAD_NAME}`, result)}`);
