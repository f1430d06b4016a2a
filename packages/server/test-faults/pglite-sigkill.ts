// The embedded server (PGlite in a data directory) killed with SIGKILL during writes, then restarted.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { openForSeeding, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { codeOf, eventScript, Scenario, type ScenarioReport, sleep, sqlRequest, waitFor } from './common.js';
import { historyAgreement } from './history-agreement.js';

export async function pgliteSigkillScenario(options: {
  cycles: number;
  writers: number;
}): Promise<ScenarioReport> {
  const s = new Scenario(
    'PGlite server killed with SIGKILL during writes',
    'after a SIGKILL mid-write (inserts, updates, deletes) and a restart on the same data directory, every acknowledged script is present entirely, no script is present in part, the change history and the data agree (every stored change has its rows, every row change its change), and the server serves',
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'expense-faults-pglite-'));
  try {
    const seeding = await openForSeeding({ dataDir });
    const keys = await seed(seeding, { users: options.writers });
    await seeding.close();
    const acknowledged = new Set<string>();
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
      // Each writer inserts three-row scripts, and updates or deletes the rows of its own acknowledged ones, so
      // that the history holds every kind of row image when the kill comes.
      const writer = async (w: number) => {
        const mine: string[] = [];
        let step = 0;
        while (!killed) {
          step++;
          attempted++;
          inFlightAtKill++;
          let res: Awaited<ReturnType<typeof sqlRequest>>;
          const target = mine.length > 0 ? mine[step % mine.length]! : undefined;
          if (target && step % 3 === 1) {
            res = await sqlRequest(
              server.origin,
              keys[w]!.apiKey,
              ROUTE_PATHS.sqlExecute,
              `UPDATE ledger_entries SET note = 'updated ${step}' WHERE event_id = '${target}'`,
            );
          } else if (target && step % 5 === 2) {
            // Whether an unacknowledged delete happened is unknown: the event is no longer checked for presence.
            acknowledged.delete(target);
            mine.splice(mine.indexOf(target), 1);
            res = await sqlRequest(
              server.origin,
              keys[w]!.apiKey,
              ROUTE_PATHS.sqlExecute,
              `DELETE FROM ledger_entries WHERE event_id = '${target}'`,
            );
          } else {
            const event = `kill9-${cycle}-${randomUUID()}`;
            res = await sqlRequest(server.origin, keys[w]!.apiKey, ROUTE_PATHS.sqlScript, eventScript(event));
            if (res.status === 200) {
              acknowledged.add(event);
              mine.push(event);
            }
          }
          inFlightAtKill--;
          if (res.status !== 200 && !killed) {
            const code = codeOf(res);
            codes[code] = (codes[code] ?? 0) + 1;
          }
        }
      };
      const writers = Promise.all(keys.map((_, w) => writer(w)));
      // The kill comes once writes are being acknowledged (a cold start on a busy machine can take seconds),
      // then after a varying delay.
      const before = attempted;
      await waitFor(async () => attempted - before >= 4 * keys.length, 120_000);
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
      const lost = [...acknowledged].filter((e) => stored.get(e) !== 3).length;
      s.numbers.cycles = options.cycles;
      s.numbers.requestsAttempted = attempted;
      s.numbers.scriptsAcknowledgedAndKept = acknowledged.size;
      s.numbers.scriptsStored = stored.size;
      s.numbers.partialScripts = partial;
      s.numbers.lostAcknowledged = lost;
      s.check(partial === 0, `${partial} scripts stored in part`);
      s.check(lost === 0, `${lost} acknowledged scripts missing after SIGKILL`);
      s.check(acknowledged.size > 0, 'no write was acknowledged');
      const history = await historyAgreement(db, 'kill9-');
      s.numbers.historyChanges = history.changes;
      s.numbers.historyRowImages = history.rowImages;
      s.check(history.changes > 0, 'no change was recorded');
      s.check(history.changesWithoutRows === 0, `${history.changesWithoutRows} changes without their rows`);
      s.check(history.orphanImages === 0, `${history.orphanImages} row images without their change`);
      s.check(
        history.rowsDisagreeing === 0,
        `${history.rowsDisagreeing} rows not as their newest change left them`,
      );
      s.check(history.rowsWithoutChange === 0, `${history.rowsWithoutChange} rows no change recorded`);
      s.check(
        history.usageMismatches === 0,
        `${history.usageMismatches} workspaces whose history total is wrong`,
      );
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
      ROUTE_PATHS.sqlQuery,
      'SELECT count(*) AS n FROM ledger_entries',
    );
    s.check(res.status === 200, `after restart: ${res.status} ${codeOf(res)}`);
    await server.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return s.report();
}
