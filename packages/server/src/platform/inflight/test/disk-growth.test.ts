// Finding 3 of issue 11: on the embedded engine (no autovacuum) an INSERT ... SELECT over a cross join rolled
// back at its deadline left its rows on disk for good (~130 MB per request). Now the touched tables are
// vacuumed after such a rollback, so repeated rolled-back writes do not make the data directory grow.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { removeDir, routePath, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, request } from '../../../features/sql/test/setup.js';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../storage/index.js';
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
    const r = await live.request('POST', routePath(API_ROUTES.sqlExecute), {
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

  it('returns the space of every rolled-back write: the table files stay within what a VACUUM leaves, the log within its bound', async () => {
    const relation = async () =>
      Number(
        (
          await db.query<{ bytes: string }>(
            "SELECT pg_catalog.pg_relation_size('public.ledger_entries') AS bytes",
          )
        ).rows[0]?.bytes,
      );
    // Two writes first: the indexes keep the pages of rolled-back entries (VACUUM makes them reusable, it does
    // not return them), so they grow to a high-water mark once and are reused from then on.
    await rolledBackWrite();
    await rolledBackWrite();
    const first = {
      dir: await sizeOf(dataDir),
      tables: await sizeOf(join(dataDir, 'base')),
      relation: await relation(),
    };
    let walMax = 0;
    for (let i = 0; i < 3; i++) {
      await rolledBackWrite();
      walMax = Math.max(walMax, await sizeOf(join(dataDir, 'pg_wal')));
      console.log(`after write ${i + 3}: data dir ${((await sizeOf(dataDir)) / MB).toFixed(1)} MB`);
    }
    const after = {
      dir: await sizeOf(dataDir),
      tables: await sizeOf(join(dataDir, 'base')),
      relation: await relation(),
    };
    // What a manual VACUUM would still return: nothing the automatic one left behind.
    await db.query('VACUUM public.ledger_entries');
    const vacuumed = await relation();
    console.log(
      `data dir ${(first.dir / MB).toFixed(1)} → ${(after.dir / MB).toFixed(1)} MB (tables ${(first.tables / MB).toFixed(1)} → ${(after.tables / MB).toFixed(1)} MB, log at most ${(walMax / MB).toFixed(1)} MB); ledger_entries ${(first.relation / MB).toFixed(2)} → ${(after.relation / MB).toFixed(2)} → ${(vacuumed / MB).toFixed(2)} MB`,
    );
    expect(after.relation).toBeLessThanOrEqual(vacuumed + 64 * 1024);
    expect(after.relation).toBeLessThanOrEqual(first.relation + 64 * 1024);
    expect(after.tables - first.tables).toBeLessThan(8 * MB);
    // max_wal_size (64MB) plus the segments in use.
    expect(walMax).toBeLessThanOrEqual(96 * MB);
  }, 300_000);
});
