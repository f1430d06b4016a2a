// Over HTTP, the answer to a dry run describes the HTTP write flow the guide describes: the same request without
// dryRun, with an Idempotency-Key or with the answer's confirmToken in the body (issue 39: both ways), never the MCP
// tools' words (issue 23, item 5).
// The guide's page is spelt as a path: the guide is served outside the route table.
import { call, PGLITE } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

describe('an HTTP dry run names the HTTP flow', () => {
  let live: Live;
  let user: TestUser;
  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(PGLITE));
  });
  afterAll(async () => live?.close());

  it('for a write and for a revert', async () => {
    const sql =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-11-02 10:00:00', 'cash', '-3.50', 'EUR', 'spend', 'coffee')";
    const dry = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      body: { sql, dryRun: true },
    });
    expect(dry.status).toBe(200);
    const guide = await live.request('GET', '/v1/guide/writing-data', { key: user.apiKey });
    expect(JSON.stringify(guide.body)).toContain('Idempotency-Key');
    const words = dry.body.instructions.join('\n');
    expect(words).toContain('Idempotency-Key');
    expect(words).toContain('data.confirmToken');
    expect(words).not.toMatch(/\bcall (execute|sql|revert)\b/);

    const done = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      body: { sql },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(done.status).toBe(200);
    const revert = await call(live, API_ROUTES.revertChange, {
      params: { changeId: done.body.data.changeId },
      key: user.apiKey,
      body: { dryRun: true },
    });
    expect(revert.status).toBe(200);
    const revertWords = revert.body.instructions.join('\n');
    expect(revertWords).toContain('Idempotency-Key');
    expect(revertWords).toContain('data.confirmToken');
    expect(revertWords).not.toMatch(/\bcall (execute|sql|revert)\b/);
  });
});
