// Issue 16's fault case on the embedded engine: the server process is killed with SIGKILL while writes (inserts,
// updates, deletes) are in flight; after a restart on the same data directory the change history and the data
// agree: every stored change has its rows, every row change its change, no image outlives its change. The kill
// comes after a number of acknowledged writes (no timing), with every writer's next request already sent.
// The same check runs in `pnpm test:faults` (test-faults/pglite-sigkill.ts) over several cycles.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_ROUTES } from '@expense/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { openForSeeding, seed } from '../../../../bench/lib/seed.js';
import { startServerProcess } from '../../../../bench/lib/server-process.js';
import { eventScript, type SqlRoute, sqlRequest } from '../../../../test-faults/common.js';
import { historyAgreement } from '../../../../test-faults/history-agreement.js';

const WRITERS = 3;
const KILL_AFTER = 24;

describe('change history after SIGKILL of the embedded server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'expense-history-sigkill-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('the history and the data agree after a restart', { timeout: 480_000 }, async () => {
    const seeding = await openForSeeding({ dataDir });
    const keys = await seed(seeding, { users: WRITERS });
    await seeding.close();

    const server = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: { EXPENSE_DATA_DIR: dataDir, EXPENSE_RATE_PER_SECOND: '1000', EXPENSE_RATE_PER_DAY: '1000000' },
    });
    const acknowledged = new Set<string>();
    let done = 0;
    let killing: Promise<string> | undefined;
    // The embedded engine stops a request that held it a second while another key waited (504 deadline_exceeded, rolled
    // back, retryable): on a loaded machine a write can; it is sent again, as a client would.
    const send = async (w: number, route: SqlRoute, sql: string): Promise<boolean> => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const res = await sqlRequest(server.origin, keys[w]!.apiKey, route, sql);
        if (res.status !== 504 || res.body?.error?.code !== 'deadline_exceeded') return res.status === 200;
      }
      return false;
    };
    const writer = async (w: number) => {
      const mine: string[] = [];
      for (let step = 1; killing === undefined; step++) {
        const target = mine.length > 0 ? mine[step % mine.length]! : undefined;
        let ok: boolean;
        if (target && step % 3 === 1) {
          const sql = `UPDATE ledger_entries SET note = 'updated ${step}' WHERE event_id = '${target}'`;
          ok = await send(w, API_ROUTES.sqlExecute, sql);
        } else if (target && step % 5 === 2) {
          acknowledged.delete(target);
          mine.splice(mine.indexOf(target), 1);
          const sql = `DELETE FROM ledger_entries WHERE event_id = '${target}'`;
          ok = await send(w, API_ROUTES.sqlExecute, sql);
        } else {
          const event = `sigkill-${randomUUID()}`;
          ok = await send(w, API_ROUTES.sqlScript, eventScript(event));
          if (ok) {
            acknowledged.add(event);
            mine.push(event);
          }
        }
        if (killing === undefined && !ok)
          throw new Error(`a write failed before the kill:\n${server.output()}`);
        // The writer that completes the count kills the server while the others' requests are in flight.
        if (ok && ++done === KILL_AFTER && killing === undefined) killing = server.kill();
      }
    };
    await Promise.all(keys.map((_, w) => writer(w)));
    expect(await killing).toBe('SIGKILL');

    // Restarting the server runs recovery and the migrations on the killed data directory, and it serves.
    const again = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: { EXPENSE_DATA_DIR: dataDir },
    });
    try {
      const res = await sqlRequest(
        again.origin,
        keys[0]!.apiKey,
        API_ROUTES.sqlQuery,
        'SELECT count(*) AS n FROM ledger_entries',
      );
      expect(res.status).toBe(200);
    } finally {
      await again.stop();
    }

    const db = await openForSeeding({ dataDir });
    try {
      const { rows } = await db.query<{ event_id: string; n: string }>(
        "SELECT event_id, count(*) AS n FROM public.ledger_entries WHERE event_id LIKE 'sigkill-%' GROUP BY event_id",
      );
      const stored = new Map(rows.map((r) => [r.event_id, Number(r.n)]));
      expect([...stored.values()].filter((n) => n !== 3)).toEqual([]);
      expect([...acknowledged].filter((e) => stored.get(e) !== 3)).toEqual([]);
      const history = await historyAgreement(db, 'sigkill-');
      expect(history.changes).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(history).toMatchObject({
        changesWithoutRows: 0,
        orphanImages: 0,
        rowsDisagreeing: 0,
        rowsWithoutChange: 0,
        usageMismatches: 0,
      });
      // The check sees a disagreement: a row changed with no change opened, and a change whose header is gone.
      await db.query(
        `UPDATE public.ledger_entries SET note = 'behind the history' WHERE entry_id =
           (SELECT entry_id FROM public.ledger_entries WHERE event_id LIKE 'sigkill-%' LIMIT 1)`,
      );
      await db.query(
        `DELETE FROM expense_internal.changes WHERE change_id =
           (SELECT change_id FROM expense_internal.changes WHERE sql_text LIKE '%sigkill-%' ORDER BY seq DESC LIMIT 1)`,
      );
      const tampered = await historyAgreement(db, 'sigkill-');
      expect(tampered.rowsDisagreeing).toBeGreaterThanOrEqual(1);
      expect(tampered.orphanImages).toBeGreaterThanOrEqual(1);
      expect(tampered.usageMismatches).toBe(1);
    } finally {
      await db.close();
    }
  });
});
