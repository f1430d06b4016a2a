// Finding 3 of issue 11: on the embedded engine (no autovacuum) an INSERT ... SELECT over a cross join rolled
// back at its deadline left its rows on disk for good (~130 MB per request). Now the touched tables are
// vacuumed after such a rollback, so repeated rolled-back writes do not make the data directory grow.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';
import { type Database, openDatabase } from '../../src/storage/index.js';
import { removeDir, tempDir } from '../http/helpers.js';
import { type Live, request } from '../sql/setup.js';
import { type Tenant, tenant } from './helpers.js';

/** Writes until its deadline: 100 rows, three ways (a million rows), each under row-level security. */
const HEAVY_WRITE =
  'INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) SELECT a.ts, a.account_id, a.amount, a.currency, a.kind, a.category FROM ledger_entries a, ledger_entries b, ledger_entries c';

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await sizeOf(join(path, entry));
  return total;
}

const MB = 1024 * 1024;

describe('rolled-back writes on a file-backed embedded database', () => {
  let dataDir: string;
  let db: Database;
  let live: Live;
  let attacker: Tenant;

  beforeAll(async () => {
    dataDir = await tempDir('expense-disk-');
    db = await openDatabase({ dataDir });
    const app = await createServer(
      { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000, sqlDeadlineMs: 8_000 },
      { database: db, keyCache: { ttlMs: 600_000 } },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    live = {
      app,
      db,
      origin,
      databaseUrl: dataDir,
      request: (method, path, options) => request(origin, method, path, options),
      close: async () => {
        app.server.closeAllConnections();
        await app.close();
        await db.close();
      },
    };
    attacker = await tenant(live, 1);
  });
  afterAll(async () => {
    await live?.close();
    if (dataDir) await removeDir(dataDir);
  });

  /** One heavy write stopped at its deadline, then the automatic VACUUM of the table it touched. */
  async function rolledBackWrite(): Promise<void> {
    const r = await live.request('POST', '/v1/sql/execute', {
      key: attacker.keys[0] as string,
      body: { sql: HEAVY_WRITE },
    });
    expect(r.body.error?.code).toBe('deadline_exceeded');
    const answeredAt = Date.now();
    // Wait for the automatic VACUUM (statistics restart with the engine after an interrupt, so a
    // last_vacuum newer than the answer is this one); without one, go on and let the sizes tell.
    await expect
      .poll(
        async () => {
          const { rows } = await db.query<{ last_vacuum: Date | null }>(
            "SELECT last_vacuum FROM pg_catalog.pg_stat_user_tables WHERE relname = 'ledger_entries'",
          );
          const last = rows[0]?.last_vacuum;
          return last instanceof Date && last.getTime() >= answeredAt - 1_000;
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(true)
      .catch(() => undefined);
  }

  it('returns the space of every rolled-back write: the directory stays within what a VACUUM leaves', async () => {
    await rolledBackWrite();
    const first = await sizeOf(dataDir);
    const relation = async () =>
      Number(
        (
          await db.query<{ bytes: string }>(
            "SELECT pg_catalog.pg_relation_size('public.ledger_entries') AS bytes",
          )
        ).rows[0]?.bytes,
      );
    const relationAfterFirst = await relation();
    for (let i = 0; i < 4; i++) {
      await rolledBackWrite();
      console.log(`after write ${i + 2}: data dir ${((await sizeOf(dataDir)) / MB).toFixed(1)} MB`);
    }
    const after = await sizeOf(dataDir);
    const relationAfter = await relation();
    // What a manual VACUUM would still return: nothing the automatic one left behind.
    await db.query('VACUUM public.ledger_entries');
    const relationVacuumed = await relation();
    console.log(
      `data dir ${(first / MB).toFixed(1)} → ${(after / MB).toFixed(1)} MB; ledger_entries ${(relationAfterFirst / MB).toFixed(2)} → ${(relationAfter / MB).toFixed(2)} → ${(relationVacuumed / MB).toFixed(2)} MB`,
    );
    expect(relationAfter).toBeLessThanOrEqual(relationVacuumed + 64 * 1024);
    expect(relationAfter).toBeLessThanOrEqual(relationAfterFirst + 64 * 1024);
    expect(after - first).toBeLessThan(32 * MB);
  }, 300_000);
});
