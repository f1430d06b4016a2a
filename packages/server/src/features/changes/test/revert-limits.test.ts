// A revert is held to the limits of user SQL: it restores at most the affected-row cap (counted in restored
// rows), and it runs on the user-SQL path, so a revert waiting behind its user's own slow write never takes a
// connection of the server's own work: other users' GET /v1/me and SELECT 1 keep answering. The server's own
// transactions give up on a lock after lock_timeout, with a coded retryable error.
import { call, ENGINES, POSTGRES, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { storageApiError } from '../../../platform/http/storage-errors.js';
import { installStubborn, STUBBORN_INSERT } from '../../../platform/inflight/test/stubborn.js';
import { openDatabase } from '../../../platform/storage/index.js';
import {
  addWorkspace,
  createUser,
  insertEntries,
  type Live,
  request,
  startWithWorkspace,
  type TestUser,
  waitFor,
} from '../../sql/test/setup.js';

const countRows = async (live: Live, key: string) =>
  (
    await call(live, API_ROUTES.sqlQuery, {
      key,
      body: { sql: 'SELECT count(*) AS n FROM ledger_entries' },
    })
  ).body.data.statements[0].rows[0].n;

describe.each(ENGINES)('revert row cap on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  }, 180_000);
  afterAll(async () => live?.close());

  it('refuses a revert that would restore more rows than a request may change, changing nothing', async () => {
    // A change of 150 rows, recorded below the guard (as a change grouping several requests would be).
    await live.db.userTransaction(
      {
        userId: user.userId,
        workspaceId,
        readOnly: false,
        change: { endpoint: 'script', connectionId: user.connectionId, sql: 'seeded' },
      },
      async (session) => {
        await session.query(insertEntries(150));
      },
    );
    const changes = await call(live, API_ROUTES.changes, { key: user.apiKey });
    const changeId = changes.body.data.changes[0].changeId as string;
    const reverted = await call(live, API_ROUTES.revertChange, {
      params: { changeId },
      key: user.apiKey,
      body: {},
    });
    expect(reverted.status).toBe(400);
    expect(reverted.body.error).toMatchObject({
      code: 'mutation_row_limit_exceeded',
      details: { affectedRows: 150, maxAffectedRows: 100 },
    });
    expect(Number(await countRows(live, user.apiKey))).toBe(150);

    // A change within the cap is reverted as before.
    await call(live, API_ROUTES.sqlExecute, { key: user.apiKey, body: { sql: insertEntries(3) } });
    const latest = (await call(live, API_ROUTES.changes, { key: user.apiKey })).body.data.changes[0];
    const ok = await call(live, API_ROUTES.revertChange, {
      params: { changeId: latest.changeId },
      key: user.apiKey,
      body: {},
    });
    expect(ok.status).toBe(200);
    expect(Number(await countRows(live, user.apiKey))).toBe(150);
  });
});

describe('a revert waiting behind its user own slow write, on PostgreSQL', () => {
  let target: Awaited<ReturnType<typeof POSTGRES.open>>;
  let db: Awaited<ReturnType<typeof openDatabase>>;
  let app: Awaited<ReturnType<typeof createServer>>;
  let origin: string;

  beforeAll(async () => {
    target = await POSTGRES.open();
    // One connection for the server's own work: a revert waiting there would hold up every key check and /me.
    db = await openDatabase({ databaseUrl: target.url, internalConnections: 1 });
    app = await createServer(
      { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000, sqlDeadlineMs: 15_000 },
      { database: db },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await installStubborn(db, 13);
  });
  afterAll(async () => {
    app?.server.closeAllConnections();
    await app?.close();
    await db?.close();
    await target?.drop();
  });

  it("keeps other users' GET /v1/me and SELECT 1 answering", async () => {
    const attacker = await createUser(db);
    await addWorkspace(db, attacker.userId);
    await request(origin, 'POST', routePath(API_ROUTES.sqlExecute), {
      key: attacker.apiKey,
      body: { sql: insertEntries(2) },
    });
    const changeId = (await request(origin, 'GET', routePath(API_ROUTES.changes), { key: attacker.apiKey }))
      .body.data.changes[0].changeId as string;
    // The slow write holds the workspace's history lock (every recorded write takes it) for 13 s.
    const slow = request(origin, 'POST', routePath(API_ROUTES.sqlExecute), {
      key: attacker.apiKey,
      body: { sql: STUBBORN_INSERT },
    });
    await waitFor(500);
    const revert = request(origin, 'POST', routePath(API_ROUTES.revertChange, { changeId }), {
      key: attacker.apiKey,
      body: {},
    });
    await waitFor(500);
    const bystander = await createUser(db);
    await addWorkspace(db, bystander.userId);
    const me = await request(origin, 'GET', routePath(API_ROUTES.me), { key: bystander.apiKey });
    expect(me.status).toBe(200);
    const one = await request(origin, 'POST', routePath(API_ROUTES.sqlQuery), {
      key: bystander.apiKey,
      body: { sql: 'SELECT 1 AS one' },
    });
    expect(one.status).toBe(200);
    expect((await slow).status).toBe(200);
    expect([200, 504]).toContain((await revert).status);
  });

  it('gives up on a lock after lock_timeout in its own transactions: a coded retryable error', async () => {
    const user = await createUser(db);
    const holder = new pg.Client({ connectionString: target.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM expense_internal.users WHERE user_id = $1 FOR UPDATE', [user.userId]);
      const failed = await db
        .transaction((tx) =>
          tx.query('UPDATE expense_internal.users SET email = email WHERE user_id = $1', [user.userId]),
        )
        .catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: 'lock_timeout', retryable: true });
      const answer = storageApiError(failed);
      expect(answer).toMatchObject({ code: 'database_unavailable' });
      expect(answer?.options.variant).toBe('lock_wait');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });
});
