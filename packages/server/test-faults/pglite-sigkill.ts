// The embedded server (PGlite in a data directory) killed with SIGKILL during writes, then restarted.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openForSeeding, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { codeOf, eventScript, Scenario, type ScenarioReport, sleep, sqlRequest } from './common.js';

export async function pgliteSigkillScenario(options: {
  cycles: number;
  writers: number;
}): Promise<ScenarioReport> {
  const s = new Scenario(
    'PGlite server killed with SIGKILL during writes',
    'after a SIGKILL mid-write and a restart on the same data directory, every acknowledged script is present entirely, no script is present in part, and the server serves',
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'expense-faults-pglite-'));
  try {
    const seeding = await openForSeeding({ dataDir });
    const keys = await seed(seeding, { users: options.writers });
    await seeding.close();
    const acknowledged: string[] = [];
    let attempted = 0;
    let restartMs = 0;
    let inFlightAtKill = 0;
    const codes: Record<string, number> = {};
    for (let cycle = 0; cycle < options.cycles; cycle++) {
      const t0 = performance.now();
      const server = await startServerProcess({
        env: { EXPENSE_DATA_DIR: dataDir, EXPENSE_RATE_PER_SECOND: '1000', EXPENSE_RATE_PER_DAY: '1000000' },
      });
      restartMs = Math.max(restartMs, performance.now() - t0);
      let killed = false;
      const writer = async (w: number) => {
        while (!killed) {
          const event = `kill9-${cycle}-${randomUUID()}`;
          attempted++;
          inFlightAtKill++;
          const res = await sqlRequest(server.origin, keys[w]!.apiKey, '/v1/sql', eventScript(event));
          inFlightAtKill--;
          if (res.status === 200) acknowledged.push(event);
          else if (!killed) {
            const code = codeOf(res);
            codes[code] = (codes[code] ?? 0) + 1;
          }
        }
      };
      const writers = Promise.all(keys.map((_, w) => writer(w)));
      await sleep(1500 + ((cycle * 700) % 1500));
      const during = inFlightAtKill;
      killed = true;
      await server.kill();
      await writers;
      s.numbers[`cycle ${cycle + 1}: requests in flight at SIGKILL`] = during;
    }
    // Ground truth from the data directory itself, as its owner.
    const db = await openForSeeding({ dataDir });
    try {
      const { rows } = await db.query<{ event_id: string; n: string }>(
        "SELECT event_id, count(*) AS n FROM public.ledger_entries WHERE event_id LIKE 'kill9-%' GROUP BY event_id",
      );
      const stored = new Map(rows.map((r) => [r.event_id, Number(r.n)]));
      const partial = [...stored.values()].filter((n) => n !== 3).length;
      const lost = acknowledged.filter((e) => stored.get(e) !== 3).length;
      s.numbers.cycles = options.cycles;
      s.numbers.scriptsAttempted = attempted;
      s.numbers.scriptsAcknowledged = acknowledged.length;
      s.numbers.scriptsStored = stored.size;
      s.numbers.partialScripts = partial;
      s.numbers.lostAcknowledged = lost;
      s.check(partial === 0, `${partial} scripts stored in part`);
      s.check(lost === 0, `${lost} acknowledged scripts missing after SIGKILL`);
      s.check(acknowledged.length > 0, 'no write was acknowledged');
    } finally {
      await db.close();
    }
    for (const [code, n] of Object.entries(codes)) s.numbers[`non-2xx before the kill: ${code}`] = n;
    s.check(Object.keys(codes).length === 0, `failures before any kill: ${JSON.stringify(codes)}`);
    // Serves again after the last kill.
    const t0 = performance.now();
    const server = await startServerProcess({ env: { EXPENSE_DATA_DIR: dataDir } });
    restartMs = Math.max(restartMs, performance.now() - t0);
    s.numbers.maxRestartMs = Math.round(restartMs);
    const res = await sqlRequest(
      server.origin,
      keys[0]!.apiKey,
      '/v1/sql/query',
      'SELECT count(*) AS n FROM ledger_entries',
    );
    s.check(res.status === 200, `after restart: ${res.status} ${codeOf(res)}`);
    await server.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return s.report();
}
