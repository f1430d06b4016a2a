// PostgreSQL restarted under load (pg_ctlcluster restart). Always leaves the cluster running.

import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { adminQuery, freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { openForSeeding, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { codeOf, eventScript, Scenario, type ScenarioReport, sleep, sqlRequest, waitFor } from './common.js';

function clusterArgs(action: string): string[] | undefined {
  const version = readdirSync('/etc/postgresql')[0];
  return version ? ['--skip-systemctl-redirect', version, 'main', action] : undefined;
}

/** Synchronous: only for status and start in the clean-up, when nothing else runs. */
function cluster(action: 'start' | 'status'): { ok: boolean; output: string } {
  const args = clusterArgs(action);
  if (!args) return { ok: false, output: 'no cluster under /etc/postgresql' };
  const r = spawnSync('pg_ctlcluster', args, { encoding: 'utf8', timeout: 120_000 });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

/** Asynchronous, so that the load keeps running in this process while PostgreSQL restarts. */
function restartCluster(): Promise<{ ok: boolean; output: string }> {
  const args = clusterArgs('restart');
  if (!args) return Promise.resolve({ ok: false, output: 'no cluster under /etc/postgresql' });
  return new Promise((resolve) => {
    const child = spawn('pg_ctlcluster', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c));
    child.stderr.on('data', (c: Buffer) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, output: output.trim() });
    });
  });
}

/** Whatever happened, PostgreSQL is running again when this returns. */
export async function ensurePostgresRunning(): Promise<void> {
  if (
    await adminQuery('SELECT 1').then(
      () => true,
      () => false,
    )
  )
    return;
  if (!cluster('status').ok) cluster('start');
  await waitFor(() => adminQuery('SELECT 1').then(() => true), 60_000, 250);
}

export async function postgresRestartScenario(options: {
  loadSeconds: number;
  workers: number;
}): Promise<ScenarioReport> {
  const s = new Scenario(
    'PostgreSQL restarted under load',
    'during a restart requests fail only with 503 database_unavailable or 500 mutation_outcome_unknown, the server serves again without a restart of its own, every acknowledged script is stored entirely and no script is stored in part',
  );
  const db = await freshPostgres({ prefix: 'expense_faults_restart' });
  try {
    const seeding = await openForSeeding({ databaseUrl: db.url });
    const keys = await seed(seeding, { users: options.workers, rowsPerWorkspace: 20 });
    await seeding.close();
    const server = await startServerProcess({
      env: { DATABASE_URL: db.url, EXPENSE_RATE_PER_SECOND: '1000', EXPENSE_RATE_PER_DAY: '1000000' },
    });
    try {
      const codes: Record<string, number> = {};
      const acknowledged: string[] = [];
      const attempted: string[] = [];
      let lastFailureAt = 0;
      let firstFailureAt = 0;
      const started = performance.now();
      const stopAt = started + options.loadSeconds * 1000;
      const worker = async (w: number) => {
        const key = keys[w]!.apiKey;
        for (let n = 0; performance.now() < stopAt; n++) {
          const write = n % 2 === 0;
          const event = `restart-${randomUUID()}`;
          if (write) attempted.push(event);
          const res = write
            ? await sqlRequest(server.origin, key, ROUTE_PATHS.sqlScript, eventScript(event))
            : await sqlRequest(
                server.origin,
                key,
                ROUTE_PATHS.sqlQuery,
                'SELECT count(*) AS n, sum(amount) AS total FROM ledger_entries',
              );
          const code = codeOf(res);
          codes[code] = (codes[code] ?? 0) + 1;
          if (code === 'ok') {
            if (write) acknowledged.push(event);
          } else {
            const t = performance.now() - started;
            if (!firstFailureAt) firstFailureAt = t;
            lastFailureAt = t;
            await sleep(50);
          }
        }
      };
      const load = Promise.all(keys.map((_, w) => worker(w)));
      await sleep(Math.min(3000, (options.loadSeconds * 1000) / 4));
      const restartStarted = performance.now() - started;
      const restart = await restartCluster();
      const restartDone = performance.now() - started;
      s.check(restart.ok, `pg_ctlcluster restart failed: ${restart.output}`);
      await load;
      s.numbers.restartTookMs = Math.round(restartDone - restartStarted);
      s.numbers.firstFailureAfterRestartStartMs = firstFailureAt
        ? Math.round(firstFailureAt - restartStarted)
        : 'none';
      s.numbers.lastFailureAfterRestartDoneMs = lastFailureAt
        ? Math.round(lastFailureAt - restartDone)
        : 'none';
      for (const [code, n] of Object.entries(codes)) s.numbers[`responses ${code}`] = n;
      const allowed = new Set(['ok', 'database_unavailable', 'mutation_outcome_unknown']);
      for (const code of Object.keys(codes)) s.check(allowed.has(code), `${codes[code]} responses ${code}`);
      s.check((codes.ok ?? 0) > 0, 'nothing succeeded');
      s.check(firstFailureAt > 0, 'no request saw the restart: the load did not overlap it');
      // Stored scripts: all three rows or none; every acknowledged one present.
      await ensurePostgresRunning();
      const rows = await adminQuery<{ event_id: string; n: string }>(
        "SELECT event_id, count(*) AS n FROM public.ledger_entries WHERE event_id LIKE 'restart-%' GROUP BY event_id",
        [],
        db.url,
      );
      const stored = new Map(rows.map((r) => [r.event_id, Number(r.n)]));
      const partial = [...stored.values()].filter((n) => n !== 3).length;
      const lost = acknowledged.filter((e) => stored.get(e) !== 3).length;
      s.numbers.scriptsAttempted = attempted.length;
      s.numbers.scriptsAcknowledged = acknowledged.length;
      s.numbers.scriptsStored = stored.size;
      s.numbers.partialScripts = partial;
      s.numbers.lostAcknowledged = lost;
      s.check(partial === 0, `${partial} scripts stored in part`);
      s.check(lost === 0, `${lost} acknowledged scripts missing`);
      const after = await sqlRequest(server.origin, keys[0]!.apiKey, ROUTE_PATHS.sqlQuery, 'SELECT 1 AS one');
      s.check(after.status === 200, `after the restart the server answers ${after.status}`);
    } finally {
      await server.stop();
    }
  } finally {
    await ensurePostgresRunning();
    await db.drop().catch(() => {});
  }
  return s.report();
}
