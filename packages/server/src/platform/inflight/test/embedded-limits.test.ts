// The embedded engine (PGlite): a read holds the one connection for a slice of one second while anyone else
// waits, the server's own work (a key check, GET /v1/me) included; and the worker is restarted between requests
// once the process's memory passed EXPENSE_EMBEDDED_MAX_MEMORY_MB.

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  insertEntries,
  request,
  type TestUser,
} from '../../../features/sql/test/setup.js';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../storage/index.js';
import { ENDLESS, untilRunning } from './helpers.js';

interface Served {
  db: Database;
  origin: string;
  logged: { msg: string }[];
  close(): Promise<void>;
}

async function serve(embeddedMaxMemoryMb?: number): Promise<Served> {
  const logged: { msg: string }[] = [];
  const logger = {
    info: (obj: object, msg?: string) => logged.push({ ...obj, msg: msg ?? '' }),
    warn: (obj: object, msg?: string) => logged.push({ ...obj, msg: msg ?? '' }),
  };
  const db = await openDatabase({
    databaseUrl: 'memory://',
    logger,
    ...(embeddedMaxMemoryMb === undefined ? {} : { embeddedMaxMemoryMb }),
  });
  // The default deadline (25 s): the slice does not grow with it.
  const app = await createServer(
    { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000 },
    { database: db },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return {
    db,
    origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    logged,
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await db.close();
    },
  };
}

async function seeded(served: Served, rows: number): Promise<TestUser> {
  const user = await createUser(served.db);
  await addWorkspace(served.db, user.userId);
  const answer = await request(served.origin, 'POST', routePath(API_ROUTES.sqlExecute), {
    key: user.apiKey,
    body: { sql: insertEntries(rows) },
  });
  if (answer.status !== 200) throw new Error(answer.text);
  return user;
}

describe('a read while the server has its own work to do, on PGlite', () => {
  let served: Served;
  let attacker: TestUser;

  beforeAll(async () => {
    served = await serve();
    attacker = await seeded(served, 100);
  }, 180_000);
  afterAll(async () => served?.close());

  it("is stopped after its slice for a bystander's key check and GET /v1/me", async () => {
    const slow = request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: attacker.apiKey,
      body: { sql: ENDLESS },
    });
    // The read runs on the engine (the server's own queries pending when its turn came would have gone first).
    await untilRunning(served.db);
    // A key never checked before: its check and /me are the server's own queries on the one connection.
    const bystander = await createUser(served.db);
    const me = await request(served.origin, 'GET', routePath(API_ROUTES.me), { key: bystander.apiKey });
    expect(me.status).toBe(200);
    const stopped = await slow;
    expect(stopped.status).toBe(504);
    expect(stopped.body.error.message).toMatch(/stopped after 1000 ms because other users were waiting/);
  });
});

describe('the embedded worker past its memory bound, on PGlite', () => {
  let served: Served;

  beforeAll(async () => {
    // A bound every process is past: the worker is restarted after the first request.
    served = await serve(1);
  }, 180_000);
  afterAll(async () => served?.close());

  it('is restarted between requests, and the data is all there afterwards', async () => {
    const user = await seeded(served, 5);
    await expect
      .poll(() => served.logged.some((l) => /restarted the embedded database worker/.test(l.msg)), {
        timeout: 60_000,
      })
      .toBe(true);
    const answer = await request(served.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: 'SELECT count(*) AS n FROM ledger_entries' },
    });
    expect(answer.status).toBe(200);
    expect(Number(answer.body.data.statements[0].rows[0].n)).toBe(5);
  });
});
