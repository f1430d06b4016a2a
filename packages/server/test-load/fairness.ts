// One tenant cannot starve another (issue 11, findings 1 and 2; issue 35, slow writes on the embedded engine),
// measured on both engines over HTTP against a real server process: an attacker with three keys keeps 12 slow
// statements going (reads, or writes that run to the deadline; retrying after each 429 as Retry-After says), while
// a bystander sends SELECT 1 and GET /v1/me one after another. Reported: the bystander's worst latency, and the
// attacker's longest answer against the deadline counted from arrival.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS, type RoutePath } from '@expense/wire/route-paths';
import { callRoute, envelopeProblem } from '../bench/lib/http.js';
import { arg, log } from '../bench/lib/results.js';
import { addKey, createUser, insertLedgerRows, openForSeeding } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { createWorkspace } from '../src/features/workspaces/store.js';

type Engine = 'pglite' | 'postgres';
type Workload = 'reads' | 'writes';

export interface FairnessOptions {
  durationS: number;
  deadlineMs: number;
  engines: Engine[];
  /** What the attacker sends: slow reads, or slow writes (each of which would run to the deadline). */
  workloads: Workload[];
}

interface Latencies {
  requests: number;
  statuses: Record<string, number>;
  p50Ms: number;
  maxMs: number;
}

export interface FairnessEngineReport {
  engine: Engine;
  workload: Workload;
  attacker: Latencies & { concurrent: number; keys: number };
  bystanderSelect: Latencies;
  bystanderMe: Latencies;
  failures: string[];
}

export interface FairnessReport {
  options: FairnessOptions;
  engines: FairnessEngineReport[];
  failures: string[];
}

/** 100 rows four ways: never finishes within a deadline. */
const ENDLESS =
  'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d';
/** A write that never finishes within a deadline: it scans 100 rows four ways for rows to copy, and finds none. */
const ENDLESS_WRITE =
  'INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) SELECT a.ts, a.account_id, a.amount, a.currency, a.kind, a.category FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d WHERE a.amount + b.amount + c.amount + d.amount < -1000000000';
const ATTACKS: Record<Workload, { route: RoutePath; sql: string }> = {
  reads: { route: ROUTE_PATHS.sqlQuery, sql: ENDLESS },
  writes: { route: ROUTE_PATHS.sqlExecute, sql: ENDLESS_WRITE },
};
/** How far past its deadline an answer may come (the cancel, a restart of the embedded engine). */
const SLACK_MS = 5_000;

function summarise(samples: { status: number; ms: number }[]): Latencies {
  const statuses: Record<string, number> = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    requests: samples.length,
    statuses,
    p50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    maxMs: Math.round(sorted.at(-1) ?? 0),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runEngine(
  engine: Engine,
  workload: Workload,
  options: FairnessOptions,
): Promise<FairnessEngineReport> {
  const failures: string[] = [];
  const pg = engine === 'postgres' ? await freshPostgres({ prefix: 'expense_fairness' }) : undefined;
  const dataDir = engine === 'pglite' ? await mkdtemp(join(tmpdir(), 'expense-fairness-')) : undefined;
  const target = pg ? { databaseUrl: pg.url } : { dataDir: dataDir as string };
  try {
    // Seeded before the server starts: an embedded data directory has one process at a time.
    const db = await openForSeeding(target);
    const keys: { attacker: string[]; bystander: string } = { attacker: [], bystander: '' };
    try {
      for (const who of ['attacker', 'bystander'] as const) {
        const userId = await createUser(db, `${who}-${Date.now()}@fairness.test`);
        const { workspaceId } = await db.transaction((tx) => createWorkspace(tx, userId, who));
        await insertLedgerRows(db, userId, workspaceId, 100, who);
        const count = who === 'attacker' ? 3 : 1;
        for (let i = 0; i < count; i++) {
          const key = await addKey(db, userId, workspaceId, `${who} ${i + 1}`);
          if (who === 'attacker') keys.attacker.push(key.apiKey);
          else keys.bystander = key.apiKey;
        }
      }
    } finally {
      await db.close();
    }
    const server = await startServerProcess({
      env: {
        ...(pg ? { DATABASE_URL: pg.url } : { EXPENSE_DATA_DIR: dataDir as string }),
        EXPENSE_SQL_DEADLINE_MS: String(options.deadlineMs),
      },
    });
    try {
      const until = Date.now() + options.durationS * 1000;
      const attack: { status: number; ms: number }[] = [];
      const select: { status: number; ms: number }[] = [];
      const me: { status: number; ms: number }[] = [];
      const check = (
        what: string,
        res: { status: number; body: unknown; text: string; headers: unknown },
      ) => {
        const problem = envelopeProblem(res as Parameters<typeof envelopeProblem>[0]);
        if (problem && failures.length < 20) failures.push(`${engine} ${what}: ${problem}`);
      };
      const attacker = async (i: number) => {
        while (Date.now() < until) {
          const res = await callRoute(server.origin, ATTACKS[workload].route, {
            key: keys.attacker[i % 3] as string,
            body: { sql: ATTACKS[workload].sql },
            timeoutMs: options.deadlineMs * 4,
          });
          attack.push({ status: res.status, ms: res.ms });
          check('attacker', res);
          if (res.status === 429) await pause(1000 * Number(res.headers['retry-after'] ?? 1));
          else if (res.status !== 504)
            failures.push(`${engine} attacker: unexpected ${res.status} ${res.text.slice(0, 120)}`);
          if (res.status === 504 && res.ms > options.deadlineMs + SLACK_MS)
            failures.push(
              `${engine} attacker: answered after ${Math.round(res.ms)} ms (deadline ${options.deadlineMs})`,
            );
        }
      };
      const bystander = async () => {
        await pause(500); // the attack is under way
        while (Date.now() < until) {
          const q = await callRoute(server.origin, ROUTE_PATHS.sqlQuery, {
            key: keys.bystander,
            body: { sql: 'SELECT 1 AS one' },
            timeoutMs: options.deadlineMs * 4,
          });
          select.push({ status: q.status, ms: q.ms });
          check('bystander select', q);
          if (q.status !== 200 && q.status !== 504)
            failures.push(`${engine} bystander select: ${q.status} ${q.text.slice(0, 120)}`);
          const m = await callRoute(server.origin, ROUTE_PATHS.me, {
            key: keys.bystander,
            timeoutMs: 60_000,
          });
          me.push({ status: m.status, ms: m.ms });
          check('bystander /me', m);
          if (m.status !== 200) failures.push(`${engine} bystander /me: ${m.status} ${m.text.slice(0, 120)}`);
          await pause(200);
        }
      };
      await Promise.all([...Array.from({ length: 12 }, (_, i) => attacker(i)), bystander()]);
      const report: FairnessEngineReport = {
        engine,
        workload,
        attacker: { ...summarise(attack), concurrent: 12, keys: 3 },
        bystanderSelect: summarise(select),
        bystanderMe: summarise(me),
        failures: failures.slice(0, 20),
      };
      if (!report.attacker.statuses['429'])
        report.failures.push(`${engine}: the attacker was never refused (no in-flight limit?)`);
      return report;
    } finally {
      await server.stop();
    }
  } finally {
    await pg?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

export async function runFairness(options: FairnessOptions): Promise<FairnessReport> {
  const engines: FairnessEngineReport[] = [];
  for (const workload of options.workloads) {
    for (const engine of options.engines) {
      log(
        `fairness: ${engine}, 12 slow ${workload} from 3 keys of one user for ${options.durationS} s (deadline ${options.deadlineMs} ms)`,
      );
      engines.push(await runEngine(engine, workload, options));
    }
  }
  return { options, engines, failures: engines.flatMap((e) => e.failures) };
}

export function logFairness(report: FairnessReport): void {
  for (const e of report.engines) {
    log(
      `fairness ${e.engine} ${e.workload}: attacker ${e.attacker.requests} requests ${JSON.stringify(e.attacker.statuses)}, longest ${e.attacker.maxMs} ms; ` +
        `bystander SELECT ${JSON.stringify(e.bystanderSelect.statuses)} p50 ${e.bystanderSelect.p50Ms} ms, worst ${e.bystanderSelect.maxMs} ms; ` +
        `/v1/me p50 ${e.bystanderMe.p50Ms} ms, worst ${e.bystanderMe.maxMs} ms: ${e.failures.length ? `FAILED ${e.failures.join('; ')}` : 'ok'}`,
    );
  }
}

export function fairnessOptionsFromArgs(): FairnessOptions {
  return {
    durationS: Number(arg('fairness-duration', '30')),
    deadlineMs: Number(arg('fairness-deadline', '8000')),
    engines: arg('fairness-engines', 'pglite,postgres').split(',') as Engine[],
    workloads: arg('fairness-workloads', 'reads,writes').split(',') as Workload[],
  };
}
