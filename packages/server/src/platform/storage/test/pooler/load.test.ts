// The server behind PgBouncer in transaction mode (DATABASE_URL = the pooler, DATABASE_DIRECT_URL = the
// server): a concurrent mixed read/write load, 24 requests at a time from four users, with PgBouncer holding
// fewer server connections than the server's pools, so that consecutive transactions of one pooled connection
// land on different server sessions. Every answer must be a success and every acknowledged write stored.
import { randomUUID } from 'node:crypto';
import {
  type FreshPostgres,
  migratedPostgres,
  type PgBouncer,
  poolerAvailable,
  routePath,
  startPgBouncer,
} from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, request, type TestUser } from '../../../../features/sql/test/setup.js';
import { createServer } from '../../../../index.js';

const CONCURRENCY = 24;
const REQUESTS = 240;

describe.runIf(poolerAvailable('the pooler load test'))('behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let target: FreshPostgres;
  let app: FastifyInstance;
  let origin: string;
  let direct: pg.Client;
  const users: (TestUser & { workspaceId: string })[] = [];

  beforeAll(async () => {
    target = await migratedPostgres();
    bouncer = await startPgBouncer({ poolSize: 4 });
    app = await createServer({
      databaseUrl: bouncer.urlOf(target.name),
      databaseDirectUrl: target.url,
      logLevel: 'silent',
      ratePerSecond: 100_000,
      ratePerDay: 1_000_000,
      // Six requests per user at once: the in-flight limits (test/fairness) are raised so the pooler decides.
      maxInflightPerKey: 100,
      maxInflightPerUser: 100,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    direct = new pg.Client({ connectionString: target.url });
    await direct.connect();
    // Users are made through the server's own storage (the pooled path too).
    const { openDatabase } = await import('../../index.js');
    const db = await openDatabase({ databaseUrl: target.url, migrate: false });
    try {
      for (let i = 0; i < 4; i++) {
        const user = await createUser(db, `load-${i}`);
        users.push({ ...user, workspaceId: await addWorkspace(db, user.userId) });
      }
    } finally {
      await db.close();
    }
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await direct?.end();
    await bouncer?.stop();
    await target?.drop();
  });

  it('answers every request with a success and stores every acknowledged write', async () => {
    const acknowledged: { account: string; workspaceId: string }[] = [];
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const user = users[i % users.length]!;
        const kind = i % 3;
        if (kind === 0) {
          const account = `load-${randomUUID()}`;
          const res = await request(origin, 'POST', routePath(API_ROUTES.sqlExecute), {
            key: user.apiKey,
            body: {
              sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-01 00:00:00+00', '${account}', ${i + 1}, 'EUR', 'spend', 'load')`,
            },
          });
          if (res.status === 200) acknowledged.push({ account, workspaceId: user.workspaceId });
          else failures.push(`write ${res.status} ${res.text}`);
        } else if (kind === 1) {
          const res = await request(origin, 'POST', routePath(API_ROUTES.sqlQuery), {
            key: user.apiKey,
            body: { sql: "SELECT count(*) AS n FROM ledger_entries WHERE category = 'load'" },
          });
          if (res.status !== 200 || res.body.data.workspaceId !== user.workspaceId)
            failures.push(`read ${res.status} ${res.text}`);
        } else {
          const res = await request(origin, 'GET', routePath(API_ROUTES.me), { key: user.apiKey });
          if (res.status !== 200 || res.body.data.user.userId !== user.userId)
            failures.push(`me ${res.status} ${res.text}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures).toEqual([]);
    expect(acknowledged).toHaveLength(REQUESTS / 3);
    const { rows } = await direct.query<{ account_id: string; workspace_id: string }>(
      "SELECT account_id, workspace_id::text FROM public.ledger_entries WHERE category = 'load'",
    );
    const stored = new Map(rows.map((row) => [row.account_id, row.workspace_id]));
    for (const write of acknowledged) expect(stored.get(write.account)).toBe(write.workspaceId);
    expect(rows).toHaveLength(acknowledged.length);
  }, 180_000);

  it('checks the session settings as the owner: the SQL role needs no EXECUTE on current_setting', async () => {
    // What a database whose SQL role may call only the dialect's functions looks like (issue 11): reads keep
    // working through the pooler, because the settings check travels in the context, before the role changes.
    await direct.query('REVOKE EXECUTE ON FUNCTION pg_catalog.current_setting(text) FROM PUBLIC');
    try {
      for (const user of users) {
        const res = await request(origin, 'POST', routePath(API_ROUTES.sqlQuery), {
          key: user.apiKey,
          body: { sql: "SELECT count(*) AS n FROM ledger_entries WHERE category = 'load'" },
        });
        expect(res.status, res.text).toBe(200);
        expect(Number(res.body.data.statements[0].rows[0].n)).toBeGreaterThan(0);
      }
    } finally {
      await direct.query('GRANT EXECUTE ON FUNCTION pg_catalog.current_setting(text) TO PUBLIC');
    }
  });
});
