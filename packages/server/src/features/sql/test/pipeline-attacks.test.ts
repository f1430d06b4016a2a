// Two attacks on the SQL request path (src/features/sql/pipeline.ts): a request that waits for a pooled connection past its
// deadline, and a client that goes away while its statement runs. Neither may keep running SQL nor hold on to a
// connection or an in-flight place.
import { request as httpRequest } from 'node:http';
import { migratedPostgres, pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { addWorkspace, createUser, ENGINES, type Live, request, startLive, waitFor } from './setup.js';

/** 10^10 rows counted: minutes on either engine, without temporary files (which temp_file_limit would stop). */
const ten = '(VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10))';
const SLOW = `SELECT count(*) AS n FROM ${'abcdefghij'
  .split('')
  .map((alias) => `${ten} ${alias}(x)`)
  .join(', ')}`;

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, attempts = 60): Promise<T> {
  let value = await probe();
  for (let i = 0; i < attempts && !ok(value); i++) {
    await waitFor(250);
    value = await probe();
  }
  return value;
}

describe('a request that waits for a PostgreSQL connection', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const target = await migratedPostgres();
    drop = target.drop;
    // One connection for user SQL, and a deadline well under the pool's 10 s connect timeout.
    db = await openDatabase({ databaseUrl: target.url, maxConnections: 1 });
    const app = await createServer(
      { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000, sqlDeadlineMs: 1_500 },
      { database: db },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    close = async () => {
      await app.close();
      await db.close();
    };
  });
  afterAll(async () => {
    await close?.();
    await drop?.();
  });

  it('gets deadline_exceeded once its deadline passes, and its SQL never runs', async () => {
    const user = await createUser(db);
    const workspaceId = await addWorkspace(db, user.userId);
    // Someone holds the only connection for user SQL until this request has its answer.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let holding!: () => void;
    const taken = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const holder = db.userTransaction(
      { userId: user.userId, workspaceId, readOnly: true },
      async (session) => {
        await session.query('SELECT 1 AS x');
        holding();
        await held;
      },
    );
    await taken;
    const insert =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', 'checking', 1, 'EUR', 'spend', 'waited')";
    const answer = await request(origin, 'POST', routePath(API_ROUTES.sqlExecute), {
      key: user.apiKey,
      body: { sql: insert },
    });
    letGo();
    await holder;
    expect(answer.status).toBe(504);
    expect(answer.body.error.code).toBe('deadline_exceeded');
    // The connection is free again and the write was never run.
    const count = await request(origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: "SELECT count(*) AS n FROM ledger_entries WHERE category = 'waited'" },
    });
    expect(count.status).toBe(200);
    expect(count.body.data.statements[0].rows).toEqual([{ n: '0' }]);
  });
});

describe.each([...ENGINES, ...pooledEngines('the client-abort attack through PgBouncer')])(
  'a client that aborts while its statement runs, on $name',
  (engine) => {
    let live: Live;
    beforeAll(async () => {
      // A long deadline: only the abort can end the statement within the test.
      live = await startLive(engine, { sqlDeadlineMs: 120_000, maxInflightPerKey: 1 });
    });
    afterAll(async () => live?.close());

    const activeProbes = async () =>
      Number(
        (
          await live.db.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM pg_catalog.pg_stat_activity WHERE state = 'active' AND query LIKE 'BEGIN READ ONLY;%' AND datname = pg_catalog.current_database() AND pid <> pg_catalog.pg_backend_pid()",
          )
        ).rows[0]?.n,
      );

    it('gets its statement cancelled and frees its connection and in-flight place', async () => {
      const user = await createUser(live.db);
      await addWorkspace(live.db, user.userId);
      const url = new URL(routePath(API_ROUTES.sqlQuery), live.origin);
      const body = JSON.stringify({ sql: SLOW });
      const other = () =>
        live.request('POST', routePath(API_ROUTES.sqlQuery), {
          key: user.apiKey,
          body: { sql: 'SELECT 1 AS x' },
        });
      const onPostgres = engine.name !== 'PGlite';
      /** Sends the slow request; `answered` is set if it got an answer (it lost the key's one place to a probe). */
      const startSlow = () => {
        const client = httpRequest(url, {
          method: 'POST',
          headers: {
            authorization: `ApiKey ${user.apiKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        });
        const slow = { answered: false, client };
        slow.client.on('error', () => {}); // the abort below
        slow.client.on('response', () => {
          slow.answered = true;
        });
        slow.client.end(body);
        return slow;
      };
      let slow = startSlow();
      // The slow request holds the key's one in-flight place (and, on PostgreSQL, is running). A probe that took the
      // place first made the slow request answer 429: send it again.
      for (let attempt = 0; attempt < 5; attempt++) {
        if (onPostgres) await until(activeProbes, (n) => n === 1 || slow.answered);
        else await until(other, (r) => r.status === 429 || slow.answered);
        if (!slow.answered) break;
        slow = startSlow();
      }
      const { client } = slow;
      try {
        // Still in flight: the key's one place is taken (the probe above saw its statement run; between its round
        // trips pg_stat_activity may show it idle in transaction, so it is not read again here).
        expect(slow.answered).toBe(false);
        expect((await other()).status).toBe(429);
      } finally {
        client.destroy();
      }
      const after = await until(other, (r) => r.status === 200);
      expect(after.status).toBe(200);
      if (onPostgres) expect(await until(activeProbes, (n) => n === 0)).toBe(0);
    });
  },
);
