// One user attacks with everything the guard accepts (issue 21, "Done when"; issue 35): from 17 keys, back to back,
// the worst statements it accepts (planner bombs of several depths, concat and numeric forms; a four-way cross join),
// writes that run to the deadline, invitations, plus /mcp floods; meanwhile another user sends GET /v1/me and
// SELECT 1 one after another. Reported per engine
// (PostgreSQL, PostgreSQL + Redis, PGlite): the bystander's p99s and the database's peak memory (PostgreSQL: the
// private memory of its server processes for the database; PGlite: the server process, which holds the engine).
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard } from '@expense/sql-guard';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import pg from 'pg';
import { call, callRoute, type Json } from '../bench/lib/http.js';
import { arg, log } from '../bench/lib/results.js';
import { rssMiB } from '../bench/lib/rss.js';
import { addKey, createUser, insertLedgerRows, openForSeeding } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { createWorkspace } from '../src/features/workspaces/store.js';

export interface AttackOptions {
  durationS: number;
  keys: number;
  /** Flood /mcp from every key too (default); off, to see the SQL attack alone. */
  mcp: boolean;
}

type Engine = 'postgres' | 'postgres+redis' | 'pglite';

interface Latency {
  requests: number;
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface AttackEngineReport {
  engine: Engine;
  attacker: { sql: Record<string, number>; mcp: Record<string, number>; refusedByGuard: string[] };
  bystanderMe: Latency;
  bystanderSelect: Latency;
  /** The bystander's three slowest answers: seconds into the attack, what, how long. */
  slowest: { atS: number; what: string; ms: number }[];
  /** Peak database memory in MiB (see the file's comment). */
  databasePeakMiB: number;
  targets: { meP99Ms: number; selectP99Ms: number; databaseMiB: number };
  failures: string[];
}

export interface AttackReport {
  options: AttackOptions;
  engines: AttackEngineReport[];
  failures: string[];
}

/** `SELECT s || s AS s FROM (<previous>) AS a`, `levels` deep: the planner copies the inner expression up. */
function concatBomb(levels: number): string {
  let sql = 'SELECT category AS s FROM ledger_entries';
  for (let i = 0; i < levels; i++) sql = `SELECT s || s AS s FROM (${sql}) AS a`;
  return sql;
}
/** `SELECT x * x - x * x + x AS x FROM (<previous>)`: ~6x CPU per level, little memory. */
function numericBomb(levels: number): string {
  let sql = 'SELECT amount AS x FROM ledger_entries';
  for (let i = 0; i < levels; i++) sql = `SELECT x * x - x * x + x AS x FROM (${sql}) AS a`;
  return sql;
}
const ENDLESS =
  'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d';
/** A write that runs to the deadline and writes nothing: the same cross join, as an INSERT ... SELECT. */
const ENDLESS_WRITE =
  "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) SELECT a.ts, 'attack', 1, 'EUR', 'spend', 'x' FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d WHERE a.amount + b.amount + c.amount + d.amount = -123456789";

/** Issue 35's long-literal bombs: the same doubling over a 90 kB literal, a 30,000-digit numeric, LIKE copies. */
function literalBomb(levels: number): string {
  let sql = `SELECT '${'x'.repeat(90_000)}' AS s`;
  for (let i = 0; i < levels; i++) sql = `SELECT s || s AS s FROM (${sql}) AS a`;
  return sql;
}
function longNumericBomb(levels: number): string {
  let sql = `SELECT ${'9'.repeat(30_000)} AS x`;
  for (let i = 0; i < levels; i++) sql = `SELECT x * x - x * x + x AS x FROM (${sql}) AS a`;
  return sql;
}
function likeBomb(copies: number): string {
  const matches = Array.from({ length: copies }, () => 't.s LIKE t.p').join(' OR ');
  return `SELECT ${matches} FROM (SELECT '${'a'.repeat(45_000)}' AS s, '%${'a'.repeat(22_000)}b' AS p) AS t`;
}

/**
 * What the attacker sends. `mustBeRefused`: the issue's doubling SELECT (20 levels), which the guard must refuse
 * before it reaches the database. If a build of the guard accepts it, it is NOT sent (a failure is reported):
 * the planner checks for neither cancel nor pg_terminate_backend while it folds the expression, so nothing but
 * SIGKILL stops it; two such backends (numeric, 16 levels) reached 9.7 GB each in 90 s on this machine, and the
 * kernel's OOM killer took PostgreSQL down with them.
 */
const STATEMENTS: { name: string; sql: string; mustBeRefused?: true }[] = [
  { name: 'concat 20', sql: concatBomb(20), mustBeRefused: true },
  { name: 'numeric 20', sql: numericBomb(20), mustBeRefused: true },
  ...[11, 13].map((n) => ({ name: `90 kB literal ${n}`, sql: literalBomb(n), mustBeRefused: true as const })),
  { name: '30,000-digit numeric 6', sql: longNumericBomb(6), mustBeRefused: true },
  { name: 'LIKE x200 over 45 kB', sql: likeBomb(200), mustBeRefused: true },
  // The deepest of them that the byte bound still accepts: 2 levels of the 90 kB doubling.
  { name: '90 kB literal 2', sql: literalBomb(2) },
  // Accepted by the guard before issue 21's bound, and bounded: ~1 s of planning and ~100 MB each on this machine (the numeric form references
  // x five times per level, so 5^levels copies: 7 levels ~ 16 of the concat form; 8 levels took 7 s).
  ...[16, 12].map((n) => ({ name: `concat ${n}`, sql: concatBomb(n) })),
  ...[7, 5].map((n) => ({ name: `numeric ${n}`, sql: numericBomb(n) })),
  { name: 'cross join x4', sql: ENDLESS },
];

/**
 * The SQL deadline of the run: the issue's measurement (a bomb ran 7.9 s against a 3 s deadline). A statement the
 * planner will not interrupt is ended one second after its cancel; with the 25 s default, every accepted bomb
 * would simply run to its end (20 levels: ~20 s and ~1.7 GiB per backend on this machine).
 */
const DEADLINE_MS = 3_000;
/** PGlite keeps the default deadline: its reads are stopped after a one-second slice whenever anyone waits. */
const deadlineOf = (engine: Engine) => (engine === 'pglite' ? 25_000 : DEADLINE_MS);

const TARGETS = {
  postgres: { meP99Ms: 300, selectP99Ms: 1_000, databaseMiB: 1_024 },
  // One statement at a time: the bystander waits a slice and the engine's restart whatever it sends.
  pglite: { meP99Ms: 6_000, selectP99Ms: 6_000, databaseMiB: 1_024 },
};

function summarise(samples: { status: string; ms: number }[]): Latency {
  const statuses: Record<string, number> = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
  return { requests: samples.length, statuses, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

/** One GET /v1/me and one SELECT 1 per cycle: 8 requests a second at most. */
const BYSTANDER_CYCLE_MS = 250;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Private memory (RssAnon) of a process in MiB: what a PostgreSQL backend allocated beyond shared buffers. */
function anonMiB(pid: number): number {
  try {
    const match = /^RssAnon:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The PostgreSQL server processes of a database (by pg_stat_activity), sampled over the direct URL. */
async function postgresMemory(
  url: string,
  name: string,
): Promise<{ sample(): Promise<number>; terminateAll(): Promise<void>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url, application_name: 'expense-attack-monitor' });
  await client.connect();
  const local = readdirSync('/proc').length > 0;
  return {
    async sample() {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      return local ? rows.reduce((sum, r) => sum + anonMiB(r.pid), 0) : 0;
    },
    async terminateAll() {
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
    },
    close: () => client.end(),
  };
}

async function runEngine(engine: Engine, options: AttackOptions): Promise<AttackEngineReport> {
  const failures: string[] = [];
  const db = engine === 'pglite' ? undefined : await freshPostgres({ prefix: 'expense_attack' });
  const dataDir = engine === 'pglite' ? await mkdtemp(join(tmpdir(), 'expense-attack-')) : undefined;
  const target = db ? { databaseUrl: db.url } : { dataDir: dataDir as string };
  const prefix = `expense-attack-${Date.now()}`;
  try {
    const seeding = await openForSeeding(target);
    const keys = { attacker: [] as string[], bystander: '', workspace: '' };
    try {
      for (const who of ['attacker', 'bystander'] as const) {
        const userId = await createUser(seeding, `${who}-${Date.now()}@attack.test`);
        const { workspaceId } = await seeding.transaction((tx) => createWorkspace(tx, userId, who));
        if (who === 'attacker') keys.workspace = workspaceId;
        await insertLedgerRows(seeding, userId, workspaceId, 100, who);
        const count = who === 'attacker' ? options.keys : 1;
        for (let i = 0; i < count; i++) {
          const key = await addKey(seeding, userId, workspaceId, `${who} ${i + 1}`);
          if (who === 'attacker') keys.attacker.push(key.apiKey);
          else keys.bystander = key.apiKey;
        }
      }
    } finally {
      await seeding.close();
    }
    const server = await startServerProcess({
      env: {
        ...(db ? { DATABASE_URL: db.url } : { EXPENSE_DATA_DIR: dataDir as string }),
        EXPENSE_SQL_DEADLINE_MS: String(deadlineOf(engine)),
        ...(engine === 'postgres+redis'
          ? { REDIS_URL: 'redis://127.0.0.1:6379', EXPENSE_REDIS_KEY_PREFIX: prefix }
          : {}),
      },
    });
    const memory = db ? await postgresMemory(db.url, db.name) : undefined;
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const mib = memory ? await memory.sample() : (rssMiB(server.pid) ?? 0);
        peak = Math.max(peak, mib);
        await pause(250);
      }
    })();
    try {
      // The guard's verdicts first (the server's own guard, same limits): what it refuses never reaches the
      // database, and is not sent again.
      const guard = await createGuard({ limits: { deadlineMs: deadlineOf(engine) } });
      const refusedByGuard: string[] = [];
      const accepted: string[] = [];
      for (const s of STATEMENTS) {
        const ok = guard.check(s.sql, { mode: 'query' }).ok;
        if (!ok) refusedByGuard.push(s.name);
        else if (s.mustBeRefused) failures.push(`${engine}: the guard accepts ${s.name} (not sent)`);
        else accepted.push(s.sql);
      }
      await guard.close();
      const until = Date.now() + options.durationS * 1000;
      const sql: Record<string, number> = {};
      const mcp: Record<string, number> = {};
      const started = Date.now();
      const me: { status: string; ms: number; atS: number }[] = [];
      const select: { status: string; ms: number; atS: number }[] = [];
      // Every third key sends writes that run to the deadline, the last one invitations, the others reads.
      const attacker = async (i: number) => {
        const key = keys.attacker[i % keys.attacker.length] as string;
        const role = i === keys.attacker.length - 1 ? 'invite' : i % 3 === 1 ? 'write' : 'read';
        let n = i;
        while (Date.now() < until) {
          const res =
            role === 'invite'
              ? await callRoute(server.origin, ROUTE_PATHS.addMember, {
                  params: { workspaceId: keys.workspace },
                  key,
                  body: { email: `invitee-${n++}@attack.test` },
                  timeoutMs: 60_000,
                }).catch(() => ({ status: 0 }))
              : await callRoute(
                  server.origin,
                  role === 'write' ? ROUTE_PATHS.sqlExecute : ROUTE_PATHS.sqlQuery,
                  {
                    key,
                    body: {
                      sql:
                        role === 'write'
                          ? ENDLESS_WRITE
                          : (accepted[n++ % Math.max(1, accepted.length)] ?? ENDLESS),
                    },
                    timeoutMs: 120_000,
                  },
                ).catch(() => ({ status: 0 }));
          const counted = `${role} ${res.status}`;
          sql[counted] = (sql[counted] ?? 0) + 1;
          if (res.status === 429) await pause(200);
        }
      };
      const flood = async (i: number) => {
        const key = keys.attacker[i % keys.attacker.length] as string;
        while (Date.now() < until) {
          const res = await call(server.origin, 'POST', '/mcp', {
            key,
            headers: { accept: 'application/json, text/event-stream' },
            body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
            timeoutMs: 60_000,
          }).catch(() => ({ status: 0 }));
          mcp[res.status] = (mcp[res.status] ?? 0) + 1;
          if (res.status === 429) await pause(100);
        }
      };
      // A refusal is counted under its status and code (429 limit_reached), so the report says which limit.
      const sample = (res: { status: number; ms: number; body: Json }) => ({
        status: res.status === 200 ? '200' : `${res.status} ${res.body?.error?.code ?? ''}`.trim(),
        ms: res.ms,
        atS: Math.round((Date.now() - res.ms - started) / 100) / 10,
      });
      const bystander = async () => {
        await pause(1_000); // the attack is under way
        while (Date.now() < until) {
          const cycle = Date.now();
          const m = await callRoute(server.origin, ROUTE_PATHS.me, {
            key: keys.bystander,
            timeoutMs: 60_000,
          }).catch(() => ({ status: 0, ms: 60_000, body: undefined }));
          me.push(sample(m));
          const q = await callRoute(server.origin, ROUTE_PATHS.sqlQuery, {
            key: keys.bystander,
            body: { sql: 'SELECT 1 AS one' },
            timeoutMs: 60_000,
          }).catch(() => ({ status: 0, ms: 60_000, body: undefined }));
          select.push(sample(q));
          // Two requests per cycle within the key's own budget (EXPENSE_RATE_PER_SECOND, 10 by default): a
          // bystander refused by its own limit would say nothing about the attack.
          await pause(BYSTANDER_CYCLE_MS - (Date.now() - cycle));
        }
      };
      await Promise.all([
        ...keys.attacker.map((_, i) => attacker(i)),
        ...(options.mcp ? keys.attacker.map((_, i) => flood(i)) : []),
        bystander(),
      ]);
      const targets = engine === 'pglite' ? TARGETS.pglite : TARGETS.postgres;
      const report: AttackEngineReport = {
        engine,
        attacker: { sql, mcp, refusedByGuard },
        bystanderMe: summarise(me),
        bystanderSelect: summarise(select),
        slowest: [
          ...me.map((m) => ({ atS: m.atS, what: 'GET /v1/me', ms: Math.round(m.ms) })),
          ...select.map((q) => ({ atS: q.atS, what: 'SELECT 1', ms: Math.round(q.ms) })),
        ]
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 3),
        databasePeakMiB: 0,
        targets,
        failures,
      };
      sampling = false;
      await sampler;
      report.databasePeakMiB = Math.round(peak);
      const wrong = (what: string, answers: { status: string }[]) => {
        const bad = answers.filter((a) => a.status !== '200').length;
        if (bad > 0) failures.push(`${engine}: ${bad} of the bystander's ${what} did not answer 200`);
      };
      wrong('GET /v1/me', me);
      wrong('SELECT 1', select);
      if (report.bystanderMe.p99Ms > targets.meP99Ms)
        failures.push(`${engine}: GET /v1/me p99 ${report.bystanderMe.p99Ms} ms > ${targets.meP99Ms} ms`);
      if (report.bystanderSelect.p99Ms > targets.selectP99Ms)
        failures.push(
          `${engine}: SELECT 1 p99 ${report.bystanderSelect.p99Ms} ms > ${targets.selectP99Ms} ms`,
        );
      if (report.databasePeakMiB > targets.databaseMiB)
        failures.push(
          `${engine}: database memory ${report.databasePeakMiB} MiB > ${targets.databaseMiB} MiB`,
        );
      return report;
    } finally {
      sampling = false;
      await sampler;
      await server.stop();
      // A statement of a server that was stopped (or killed) mid-planning would run on alone: end them.
      await memory?.terminateAll();
      await memory?.close();
    }
  } finally {
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

export async function runAttack(options: AttackOptions): Promise<AttackReport> {
  const engines: AttackEngineReport[] = [];
  const only = arg('attack-engines', 'postgres,postgres+redis,pglite').split(',') as Engine[];
  for (const engine of only) {
    log(
      `attack: ${engine}, one user from ${options.keys} keys${options.mcp ? ' plus /mcp floods' : ''} for ${options.durationS} s`,
    );
    engines.push(await runEngine(engine, options));
  }
  return { options, engines, failures: engines.flatMap((e) => e.failures) };
}

export function logAttack(report: AttackReport): void {
  for (const e of report.engines) {
    log(
      `attack ${e.engine}: guard refused [${e.attacker.refusedByGuard.join(', ')}]; attacker SQL ${JSON.stringify(e.attacker.sql)}, /mcp ${JSON.stringify(e.attacker.mcp)}; ` +
        `bystander /v1/me p50 ${e.bystanderMe.p50Ms} p99 ${e.bystanderMe.p99Ms} max ${e.bystanderMe.maxMs} ms ${JSON.stringify(e.bystanderMe.statuses)}, ` +
        `SELECT 1 p50 ${e.bystanderSelect.p50Ms} p99 ${e.bystanderSelect.p99Ms} max ${e.bystanderSelect.maxMs} ms ${JSON.stringify(e.bystanderSelect.statuses)}; ` +
        `slowest ${e.slowest.map((s) => `${s.what} ${s.ms} ms at ${s.atS} s`).join(', ')}; ` +
        `database peak ${e.databasePeakMiB} MiB: ${e.failures.length ? `FAILED ${e.failures.join('; ')}` : 'ok'}`,
    );
  }
}

export function attackOptionsFromArgs(): AttackOptions {
  return {
    durationS: Number(arg('attack-duration', '20')),
    keys: Number(arg('attack-keys', '17')),
    mcp: arg('attack-mcp', 'on') !== 'off',
  };
}
