// A wide result (1,600 columns of long notes in a few rows) answers 400 result_too_large and the server goes on.

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from './setup.js';

const note = 'n'.repeat(2000);
const wide = `SELECT ${Array.from({ length: 1600 }, (_, i) => `note c${i}`).join(', ')} FROM ledger_entries`;

describe.each(ENGINES)('result_too_large on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
    const values = Array.from(
      { length: 5 },
      (_, i) => `(TIMESTAMPTZ '2026-01-01 00:00:00+00', 'wide', ${i + 1}, 'EUR', 'spend', '${note}')`,
    ).join(', ');
    const seeded = await live.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: user.apiKey,
      body: {
        sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ${values}`,
      },
    });
    expect(seeded.status).toBe(200);
  });
  afterAll(async () => live?.close());

  it('answers 400 result_too_large for 16 MB in five rows, and keeps serving', async () => {
    const res = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: wide },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'result_too_large',
      details: { statementIndex: 0, maxResultBytes: 4 * 1024 * 1024 },
    });
    expect(res.body.error.hint).toMatch(/fewer or shorter columns, or aggregate/);

    const script = await live.request('POST', routePath(API_ROUTES.sqlScript), {
      key: user.apiKey,
      body: { sql: `${wide} LIMIT 1; ${wide} LIMIT 1; ${wide} LIMIT 1` },
    });
    expect(script.status).toBe(400);
    expect(script.body.error).toMatchObject({ code: 'result_too_large', details: { statementIndex: 1 } });

    const after = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: "SELECT count(*) AS n FROM ledger_entries WHERE account_id = 'wide'" },
    });
    expect(after.status).toBe(200);
    expect(after.body.data.statements[0].rows).toEqual([{ n: '5' }]);
    expect(after.body.data.limits.maxResultBytes).toBe(4 * 1024 * 1024);
  });

  it('rolls back a write whose RETURNING is too large', async () => {
    const returning = Array.from({ length: 600 }, (_, i) => `note r${i}`).join(', ');
    const res = await live.request('POST', routePath(API_ROUTES.sqlExecute), {
      key: user.apiKey,
      body: {
        sql: `UPDATE ledger_entries SET amount = amount + 1000 WHERE account_id = 'wide' RETURNING ${returning}`,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('result_too_large');
    const sum = await live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key: user.apiKey,
      body: { sql: "SELECT sum(amount) AS s FROM ledger_entries WHERE account_id = 'wide'" },
    });
    expect(sum.body.data.statements[0].rows).toEqual([{ s: '15' }]);
  });
});
