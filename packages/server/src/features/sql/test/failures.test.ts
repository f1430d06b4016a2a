import { randomUUID } from 'node:crypto';
import { pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  engineSelected,
  insertEntries,
  type Live,
  POSTGRES,
  seedEntries,
  startWithWorkspace,
  type TestUser,
  waitFor,
} from './setup.js';

/** Ten billion rows to count: minutes of work on either engine. */
const MINUTES_LONG =
  'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c, ledger_entries d, ledger_entries e';

const countOf = async (live: Live, account: string) =>
  (await live.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows.length;

describe.each([...ENGINES, ...pooledEngines('the deadline test through PgBouncer')])(
  'the SQL deadline on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;

    beforeAll(async () => {
      ({ live, user } = await startWithWorkspace(engine, { sqlDeadlineMs: 1500 }));
      await seedEntries(live, user.apiKey, 100, 'seed');
    });
    afterAll(async () => live?.close());

    it('answers 504 deadline_exceeded, leaves nothing half-done, and serves again', async () => {
      const script = await live.request('POST', routePath(API_ROUTES.sqlScript), {
        key: user.apiKey,
        body: { sql: `${insertEntries(2, 'deadline')}; ${MINUTES_LONG}` },
        headers: { 'idempotency-key': randomUUID() },
      });
      expect(script.status).toBe(504);
      expect(script.body.error).toMatchObject({
        code: 'deadline_exceeded',
        retryable: true,
        details: { deadlineMs: 1500 },
      });
      expect(script.body.data).toBeUndefined();
      const query = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
        key: user.apiKey,
        body: { sql: MINUTES_LONG },
      });
      expect(query.status).toBe(504);
      expect(query.body.limits).toBeUndefined();
      expect(await countOf(live, 'deadline')).toBe(0);
      expect(await countOf(live, 'seed')).toBe(100);
      const after = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
        key: user.apiKey,
        body: { sql: 'SELECT count(*) AS n FROM ledger_entries' },
      });
      expect(after.body.data.statements[0].rows).toEqual([{ n: '100' }]);
      expect(after.body.data.limits.deadlineMs).toBe(1500);
    });
  },
);

describe.runIf(engineSelected('postgres'))('a database connection killed mid-request (PostgreSQL)', () => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(POSTGRES));
    await seedEntries(live, user.apiKey, 100, 'seed');
  });
  afterAll(async () => live?.close());

  it('answers 503 database_unavailable (retryable) and commits nothing; a retry with the key runs', async () => {
    const key = randomUUID();
    const body = { sql: `${insertEntries(2, 'killed')}; ${MINUTES_LONG}` };
    const pending = live.request('POST', routePath(API_ROUTES.sqlScript), {
      key: user.apiKey,
      body,
      headers: { 'idempotency-key': key },
    });
    const admin = new pg.Client({ connectionString: live.databaseUrl });
    await admin.connect();
    try {
      let killed = false;
      for (let i = 0; i < 200 && !killed; i++) {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
             AND query LIKE '%ledger_entries e%'`,
        );
        killed = rows.some((r) => r.done === true);
        if (!killed) await waitFor(50);
      }
      expect(killed).toBe(true);
    } finally {
      await admin.end();
    }
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'database_unavailable', retryable: true });
    expect(JSON.stringify(res.body)).not.toMatch(/terminat|administrator|pid/i);
    expect(await countOf(live, 'killed')).toBe(0);

    // Nothing ran, so the key was given back: a retry under it runs (and the pool works again).
    const retry = await live.request('POST', routePath(API_ROUTES.sqlScript), {
      key: user.apiKey,
      body: { sql: insertEntries(2, 'killed') },
      headers: { 'idempotency-key': key },
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await countOf(live, 'killed')).toBe(2);
  });
});
