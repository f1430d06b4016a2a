// Load: many concurrent connections across many keys for a fixed time against the DEFAULT per-key limits.
// Invariants: no 5xx and no network errors, every answer is the envelope, the per-key limit is exact (never more
// than q admitted per limiter window, every window filled under pressure), every acknowledged write is stored,
// and the server's RSS stays flat. Bounded: stops after --duration seconds (default 60).
import { randomUUID } from 'node:crypto';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import pg from 'pg';
import { callRoute, envelopeProblem, type HttpResponse } from '../bench/lib/http.js';
import { arg, log } from '../bench/lib/results.js';
import { RssSampler, type RssSummary, round } from '../bench/lib/rss.js';
import { openForSeeding, type SeededKey, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';

export interface LoadOptions {
  durationS: number;
  connections: number;
  keys: number;
}

const RATE = 10;

interface Admitted {
  /** remaining (r) of the RateLimit field on a 2xx */
  r: number;
  at: number;
}

interface KeyStats {
  ok: Admitted[];
  limited: number;
  /** 429 too_many_concurrent_requests (admitted by the rate limits). */
  concurrent: number;
  /** 200s per client-clock second */
  perSecond: Map<number, number>;
}

export interface LoadReport {
  options: LoadOptions;
  engine: 'postgres';
  requests: number;
  reqPerSec: number;
  statuses: Record<string, number>;
  networkErrors: number;
  envelopeProblems: string[];
  fiveXx: number;
  limits: {
    ratePerSecond: number;
    admittedPerKeyMin: number;
    admittedPerKeyMax: number;
    /** Highest mean of 2xx per limiter window over the keys (<= rate). */
    meanPerWindowMax: number;
    /** Windows whose 10 places were all used, over all windows (the last window of each key may be partial). */
    fullWindows: number;
    windows: number;
    /** Most 2xx of one key in one client-clock second (<= 2 x rate, as windows are not aligned to it). */
    maxPerClientSecond: number;
    violations: string[];
  };
  writes: { acknowledged: number; stored: number; lost: number };
  memory: RssSummary;
  latencyMs: { p50: number; p99: number; max: number };
  failures: string[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!, 1);
}

/** The remaining count of the tightest policy in `RateLimit: "burst";r=7;t=1`. */
function remaining(res: HttpResponse): number | undefined {
  const m = /;r=(\d+)/.exec(String(res.headers.ratelimit ?? ''));
  return m ? Number(m[1]) : undefined;
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const db = await freshPostgres({ prefix: 'expense_load' });
  const failures: string[] = [];
  try {
    const seeding = await openForSeeding({ databaseUrl: db.url });
    const keys = await seed(seeding, { users: options.keys, rowsPerWorkspace: 50 });
    await seeding.close();
    const server = await startServerProcess({ env: { DATABASE_URL: db.url } });
    const stats = new Map<string, KeyStats>(
      keys.map((k) => [k.apiKey, { ok: [], limited: 0, concurrent: 0, perSecond: new Map() }]),
    );
    const statuses: Record<string, number> = {};
    const envelopeProblems: string[] = [];
    const latencies: number[] = [];
    const written: { key: SeededKey; externalId: string }[] = [];
    let networkErrors = 0;
    let requests = 0;
    const rss = new RssSampler(server.pid, 1000);
    const started = performance.now();
    const deadline = started + options.durationS * 1000;

    const oneRequest = async (key: SeededKey, n: number): Promise<void> => {
      const kind = n % 10;
      let res: HttpResponse;
      let externalId: string | undefined;
      if (kind === 0) {
        externalId = `load-${randomUUID()}`;
        res = await callRoute(server.origin, ROUTE_PATHS.sqlExecute, {
          key: key.apiKey,
          body: {
            sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, external_id) VALUES (TIMESTAMPTZ '2026-03-01T10:00:00Z', 'load', -1.50, 'USD', 'spend', 'load', '${externalId}')`,
          },
        });
      } else if (kind === 1) {
        res = await callRoute(server.origin, ROUTE_PATHS.me, { key: key.apiKey });
      } else {
        res = await callRoute(server.origin, ROUTE_PATHS.sqlQuery, {
          key: key.apiKey,
          body: {
            sql: 'SELECT account_id, sum(amount) AS total, count(*) AS n FROM ledger_entries GROUP BY account_id',
          },
        });
      }
      requests++;
      latencies.push(res.ms);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const problem = envelopeProblem(res);
      if (problem && envelopeProblems.length < 20) envelopeProblems.push(`${res.status}: ${problem}`);
      const s = stats.get(key.apiKey)!;
      if (res.status === 429 && res.body?.error?.code === 'too_many_concurrent_requests') {
        // Admitted by the rate limits (it spent a point and carries the RateLimit field), then refused because
        // the key already had 2 SQL requests in flight: it counts in the rate window like a success.
        s.concurrent++;
        if (res.headers['retry-after'] !== '1')
          envelopeProblems.push('too_many_concurrent_requests without Retry-After: 1');
        const r = remaining(res);
        if (r === undefined)
          envelopeProblems.push('429 too_many_concurrent_requests without a RateLimit field');
        const at = performance.now() - started;
        s.ok.push({ r: r ?? -1, at });
        const second = Math.floor(at / 1000);
        s.perSecond.set(second, (s.perSecond.get(second) ?? 0) + 1);
      } else if (res.status === 429) {
        s.limited++;
        if (res.body?.error?.code !== 'rate_limited' || !res.headers['retry-after'])
          envelopeProblems.push('429 without rate_limited / Retry-After');
      } else if (res.status < 300) {
        const r = remaining(res);
        if (r === undefined) envelopeProblems.push(`${res.status} without a RateLimit field`);
        const at = performance.now() - started;
        s.ok.push({ r: r ?? -1, at });
        const second = Math.floor(at / 1000);
        s.perSecond.set(second, (s.perSecond.get(second) ?? 0) + 1);
        if (externalId) written.push({ key, externalId });
      }
    };

    const connection = async (i: number): Promise<void> => {
      const key = keys[i % keys.length]!;
      for (let n = i; performance.now() < deadline; n++) {
        try {
          await oneRequest(key, n);
        } catch {
          networkErrors++;
        }
      }
    };
    log(`load: ${options.connections} connections over ${keys.length} keys for ${options.durationS} s`);
    await Promise.all(Array.from({ length: options.connections }, (_, i) => connection(i)));
    const elapsed = (performance.now() - started) / 1000;
    const memory = rss.stop();

    // Limits: reconstruct the limiter's windows from r (r = q-1 opens a window), per key.
    const violations: string[] = [];
    let meanPerWindowMax = 0;
    let fullWindows = 0;
    let windows = 0;
    let maxPerClientSecond = 0;
    const admitted: number[] = [];
    for (const [apiKey, s] of stats) {
      const id = apiKey.slice(0, 14);
      const counts = new Map<number, number>();
      for (const a of s.ok) counts.set(a.r, (counts.get(a.r) ?? 0) + 1);
      const w = counts.get(RATE - 1) ?? 0;
      windows += w;
      admitted.push(s.ok.length);
      for (const [r, c] of counts) {
        if (r < 0 || r >= RATE) violations.push(`${id}: r=${r} outside 0..${RATE - 1}`);
        if (c > w)
          violations.push(`${id}: r=${r} seen ${c} times in ${w} windows (over ${RATE} in a window)`);
      }
      const full = counts.get(0) ?? 0;
      fullWindows += full;
      if (full < w - 1) violations.push(`${id}: only ${full} of ${w} windows full under pressure`);
      if (w > Math.ceil(elapsed) + 1) violations.push(`${id}: ${w} windows in ${round(elapsed)} s`);
      meanPerWindowMax = Math.max(meanPerWindowMax, w === 0 ? 0 : round(s.ok.length / w, 2));
      for (const c of s.perSecond.values()) maxPerClientSecond = Math.max(maxPerClientSecond, c);
      if (s.ok.length > RATE * (Math.ceil(elapsed) + 1))
        violations.push(`${id}: ${s.ok.length} admitted in ${round(elapsed)} s`);
    }
    if (maxPerClientSecond > 2 * RATE) violations.push(`a key got ${maxPerClientSecond} in one second`);

    // Every acknowledged write is stored.
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    const ids = written.map((w) => w.externalId);
    const stored = Number(
      (
        await check.query('SELECT count(*) AS n FROM public.ledger_entries WHERE external_id = ANY($1)', [
          ids,
        ])
      ).rows[0].n,
    );
    await check.end();

    const fiveXx = Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((a, [, c]) => a + c, 0);
    if (fiveXx > 0) failures.push(`${fiveXx} responses with 5xx`);
    if (networkErrors > 0) failures.push(`${networkErrors} network errors`);
    if (envelopeProblems.length > 0)
      failures.push(`envelope problems: ${envelopeProblems.slice(0, 3).join('; ')}`);
    failures.push(...violations.slice(0, 10));
    if (stored !== ids.length) failures.push(`${ids.length - stored} acknowledged writes missing`);
    // Flat: growth after warm-up (mean of the last quarter minus the second quarter) under 64 MiB.
    if (memory.driftMiB > 64) failures.push(`RSS grew ${memory.driftMiB} MiB after warm-up`);
    await server.stop();
    latencies.sort((a, b) => a - b);
    return {
      options,
      engine: 'postgres',
      requests,
      reqPerSec: round(requests / elapsed, 0),
      statuses,
      networkErrors,
      envelopeProblems,
      fiveXx,
      limits: {
        ratePerSecond: RATE,
        admittedPerKeyMin: Math.min(...admitted),
        admittedPerKeyMax: Math.max(...admitted),
        meanPerWindowMax,
        fullWindows,
        windows,
        maxPerClientSecond,
        violations,
      },
      writes: { acknowledged: ids.length, stored, lost: ids.length - stored },
      memory,
      latencyMs: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: percentile(latencies, 100),
      },
      failures,
    };
  } finally {
    await db.drop();
  }
}

export function loadOptionsFromArgs(): LoadOptions {
  return {
    durationS: Number(arg('duration', process.env.EXPENSE_LOAD_DURATION ?? '60')),
    connections: Number(arg('connections', '200')),
    keys: Number(arg('keys', '40')),
  };
}
