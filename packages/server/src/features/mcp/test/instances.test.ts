// Confirmation tokens are the API's, shared by every instance through the database (migrations 0035-0036): a dry
// run on one server instance commits on another that shares the PostgreSQL database, exactly once, over HTTP and
// over /mcp; the secret rotates without voiding the tokens already issued.
import { randomUUID } from 'node:crypto';
import { POSTGRES, request, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { insertEntries, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';
import { call, errorOf, httpClient } from './helpers.js';

describe('confirmation tokens across server instances sharing one PostgreSQL database', () => {
  let a: Live;
  let user: TestUser;
  let db: Database;
  let app: FastifyInstance;
  let originB: string;

  beforeAll(async () => {
    ({ live: a, user } = await startWithWorkspace(POSTGRES));
    db = await openDatabase({ databaseUrl: a.databaseUrl });
    app = await createServer(
      { logLevel: 'silent', ratePerSecond: 100_000, ratePerDay: 1_000_000 },
      { database: db },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    originB = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await a?.close();
  });

  const onA = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    a.request('POST', path, { key: user.apiKey, body, headers });
  const onB = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(originB, 'POST', path, { key: user.apiKey, body, headers });
  const count = async (account: string) =>
    (await a.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows.length;

  it('a dry run on A commits on B once; the same token again replays, under another key it is used', async () => {
    const account = `inst-${randomUUID().slice(0, 8)}`;
    const sql = insertEntries(2, account);
    const dry = await onA(routePath(API_ROUTES.sqlScript), { sql, dryRun: true });
    expect(dry.status).toBe(200);
    const { confirmToken, confirmTokenExpiresAt } = dry.body.data;
    expect(confirmToken).toMatch(/^ct1\./);
    expect(Date.parse(confirmTokenExpiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);

    const mismatch = await onB(routePath(API_ROUTES.sqlScript), {
      sql: insertEntries(3, account),
      confirmToken,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('confirmation_mismatch');
    const done = await onB(routePath(API_ROUTES.sqlScript), { sql, confirmToken });
    expect(done.status).toBe(200);
    expect(done.body.data.committed).toBe(true);
    expect(await count(account)).toBe(2);

    const replay = await onA(routePath(API_ROUTES.sqlScript), { sql, confirmToken });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const used = await onA(
      routePath(API_ROUTES.sqlScript),
      { sql, confirmToken },
      { 'idempotency-key': `k-${account}` },
    );
    expect(used.status).toBe(409);
    expect(used.body.error.code).toBe('confirmation_used');
    expect(await count(account)).toBe(2);
  });

  it('two instances committing one token at once: exactly one commits', async () => {
    const account = `race-${randomUUID().slice(0, 8)}`;
    const sql = insertEntries(1, account);
    const { confirmToken } = (await onA(routePath(API_ROUTES.sqlExecute), { sql, dryRun: true })).body.data;
    const [x, y] = await Promise.all([
      onA(routePath(API_ROUTES.sqlExecute), { sql, confirmToken }, { 'idempotency-key': `x-${account}` }),
      onB(routePath(API_ROUTES.sqlExecute), { sql, confirmToken }, { 'idempotency-key': `y-${account}` }),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    expect(await count(account)).toBe(1);
  });

  it('over /mcp: execute and revert dry-run on A and commit on B', async () => {
    const clientA = await httpClient(a, user.apiKey, 'socket');
    const clientB = await httpClient({ ...a, origin: originB, app }, user.apiKey, 'socket');
    try {
      const account = `mcp-${randomUUID().slice(0, 8)}`;
      const sql = insertEntries(1, account);
      const dry = await call(clientA, 'execute', { sql });
      const done = await call(clientB, 'execute', { sql, confirmToken: dry.structuredContent.confirmToken });
      expect(done.structuredContent.committed).toBe(true);
      expect(await count(account)).toBe(1);
      const changeId = (await call(clientA, 'history')).structuredContent.changes[0].changeId;
      const preview = await call(clientA, 'revert', { changeId });
      const reverted = await call(clientB, 'revert', {
        changeId,
        confirmToken: preview.structuredContent.confirmToken,
      });
      expect(reverted.structuredContent.committed).toBe(true);
      expect(await count(account)).toBe(0);
      const forged = await call(clientB, 'revert', {
        changeId,
        confirmToken: `${preview.structuredContent.confirmToken}x`,
      });
      expect(errorOf(forged).error.code).toBe('confirmation_invalid');
    } finally {
      await clientA.close();
      await clientB.close();
    }
  });

  it('rotating the secret keeps the tokens already issued valid, and keeps two secrets', async () => {
    const account = `rot-${randomUUID().slice(0, 8)}`;
    const sql = insertEntries(1, account);
    const before = (await onA(routePath(API_ROUTES.sqlScript), { sql, dryRun: true })).body.data.confirmToken;
    await a.db.query('SELECT expense_internal.rotate_confirmation_secret()');
    const committed = await onB(routePath(API_ROUTES.sqlScript), { sql, confirmToken: before });
    expect(committed.status).toBe(200);
    expect(await count(account)).toBe(1);
    await a.db.query('SELECT expense_internal.rotate_confirmation_secret()');
    const kept = await a.db.query('SELECT secret_id FROM expense_internal.confirmation_secrets');
    expect(kept.rows).toHaveLength(2);
  });
});
