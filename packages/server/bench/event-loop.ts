// Long SQL texts and the event loop (issue 10): one key sends 10 texts per second of 100,000 characters
// (`SELECT 1 IN (1,1,...)`, hundreds of milliseconds of parsing each) while a bystander key calls GET /v1/me
// every 50 ms. The server runs in this process (PostgreSQL), so `perf_hooks.monitorEventLoopDelay` sees its loop:
// p99 and max event-loop delay, and the bystander's latency beside its idle value, with the guard's check
// inline (the old behaviour) and in its worker pool (the default), in the same run.
// Run in packages/server: node --conditions=@expense/source --import tsx bench/event-loop.ts [--seconds 8]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../src/index.js';
import { openDatabase } from '../src/platform/storage/index.js';
import { callRoute } from './lib/http.js';
import { openForSeeding, seed } from './lib/seed.js';

const argv = process.argv.slice(2);
const seconds = Number(argv[argv.indexOf('--seconds') + 1] || 8);
const HIGH_LIMITS = { ratePerSecond: 1_000_000, ratePerDay: 1_000_000_000 };
const longText = `SELECT 1 IN (${Array.from({ length: 49_990 }, () => '1').join(',')})`;

interface Figures {
  variant: string;
  idleP50: number;
  idleMax: number;
  bystanderP50: number;
  bystanderP99: number;
  bystanderMax: number;
  loopP99: number;
  loopMax: number;
  longAnswered: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const ms = (x: number) => Math.round(x * 10) / 10;

/** GET /v1/me every 50 ms for `durationMs`; latencies in ms. */
async function bystander(origin: string, key: string, durationMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    const started = performance.now();
    const res = await callRoute(origin, ROUTE_PATHS.me, { key });
    if (res.status !== 200) throw new Error(`GET /v1/me answered ${res.status}`);
    latencies.push(performance.now() - started);
    await sleep(50);
  }
  return latencies;
}

async function measure(
  variant: string,
  app: FastifyInstance,
  origin: string,
  keys: [string, string],
): Promise<Figures> {
  const [attacker, bystanderKey] = keys;
  // Warm up: the bystander's key is verified once, the pool's thread started.
  await callRoute(origin, ROUTE_PATHS.me, { key: bystanderKey });
  await callRoute(origin, ROUTE_PATHS.sqlQuery, {
    key: attacker,
    body: { sql: longText },
    timeoutMs: 120_000,
  });
  const idle = await bystander(origin, bystanderKey, 3_000);

  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const statuses: Record<number, number> = {};
  const sends: Promise<void>[] = [];
  const stop = performance.now() + seconds * 1000;
  const attack = (async () => {
    for (let next = performance.now(); next < stop; next += 100) {
      await sleep(Math.max(0, next - performance.now()));
      sends.push(
        callRoute(origin, ROUTE_PATHS.sqlQuery, {
          key: attacker,
          body: { sql: longText },
          timeoutMs: 120_000,
        }).then((res) => {
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        }),
      );
    }
  })();
  const during = await bystander(origin, bystanderKey, seconds * 1000);
  await attack;
  loop.disable();
  await Promise.all(sends);
  void app;
  return {
    variant,
    idleP50: ms(quantile(idle, 0.5)),
    idleMax: ms(Math.max(...idle)),
    bystanderP50: ms(quantile(during, 0.5)),
    bystanderP99: ms(quantile(during, 0.99)),
    bystanderMax: ms(Math.max(...during)),
    loopP99: ms(loop.percentile(99) / 1e6),
    loopMax: ms(loop.max / 1e6),
    longAnswered: Object.entries(statuses)
      .map(([status, n]) => `${n} x ${status}`)
      .join(', '),
  };
}

const target = await freshPostgres({ prefix: 'expense_loop' });
const figures: Figures[] = [];
try {
  const seeding = await openForSeeding({ databaseUrl: target.url });
  const seeded = await seed(seeding, { users: 2 });
  await seeding.close();
  const keys: [string, string] = [seeded[0]!.apiKey, seeded[1]!.apiKey];
  for (const [variant, checkPool] of [
    ['inline (before)', { minLength: Number.POSITIVE_INFINITY }],
    ['worker pool (after)', undefined],
  ] as const) {
    const db = await openDatabase({ databaseUrl: target.url });
    const app = await createServer(
      { logLevel: 'silent', ...HIGH_LIMITS },
      { database: db, ...(checkPool ? { sqlCheckPool: checkPool } : {}) },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      figures.push(await measure(variant, app, origin, keys));
    } finally {
      await app.close();
      await db.close();
    }
  }
} finally {
  await target.drop();
}

console.log(
  `One key sends 10 texts per second of ${longText.length.toLocaleString('en-US')} characters for ${seconds} s; a bystander calls GET /v1/me every 50 ms (PostgreSQL, server in this process).`,
);
console.log('');
console.log(
  '| check | event-loop delay p99 | event-loop delay max | GET /v1/me idle p50 / max | GET /v1/me under load p50 / p99 / max | long texts answered |',
);
console.log('|---|---|---|---|---|---|');
for (const f of figures) {
  console.log(
    `| ${f.variant} | ${f.loopP99} ms | ${f.loopMax} ms | ${f.idleP50} / ${f.idleMax} ms | ${f.bystanderP50} / ${f.bystanderP99} / ${f.bystanderMax} ms | ${f.longAnswered} |`,
  );
}
