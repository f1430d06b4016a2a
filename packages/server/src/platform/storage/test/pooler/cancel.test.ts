// The deadline's cancel is a protocol CancelRequest to the host and port the client is connected to: it stops
// the statement on a direct connection and through PgBouncer in transaction mode alike (where the pid the
// client knows is PgBouncer's own, so pg_cancel_backend(pid) could not work), and the connection stays usable.

import {
  type FreshPostgres,
  migratedPostgres,
  type PgBouncer,
  poolerAvailable,
  startPgBouncer,
} from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cancelRequest } from '../../cancel.js';

describe.runIf(poolerAvailable('the cancel test through PgBouncer'))('cancelRequest', () => {
  let target: FreshPostgres;
  let bouncer: PgBouncer;
  let monitor: pg.Client;

  beforeAll(async () => {
    target = await migratedPostgres();
    bouncer = await startPgBouncer({ poolSize: 2 });
    monitor = new pg.Client({ connectionString: target.url });
    await monitor.connect();
  });
  afterAll(async () => {
    await monitor?.end();
    await bouncer?.stop();
    await target?.drop();
  });

  for (const via of ['direct', 'PgBouncer'] as const) {
    it(`stops a running statement ${via === 'direct' ? 'on a direct connection' : 'through PgBouncer'}`, async () => {
      const url = via === 'direct' ? target.url : bouncer.urlOf(target.name);
      const client = new pg.Client({ connectionString: url, application_name: `cancel-${via}` });
      await client.connect();
      try {
        const marker = `cancel_me_${via.toLowerCase()}`;
        const running = client.query(`SELECT pg_catalog.pg_sleep(60) AS ${marker}`);
        const outcome = running.then(
          () => 'finished',
          (error: { code?: string }) => error.code,
        );
        await vi.waitFor(
          async () => {
            const { rows } = await monitor.query(
              "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1",
              [`%AS ${marker}%`],
            );
            expect(rows).toHaveLength(1);
          },
          { timeout: 10_000, interval: 50 },
        );
        await cancelRequest(client);
        expect(await outcome).toBe('57014'); // query_canceled
        expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await client.end();
      }
    });
  }
});
