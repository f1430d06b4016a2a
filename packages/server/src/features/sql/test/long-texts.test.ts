// Long SQL texts are checked off the main thread (the guard's checkAsync) through the check cache: the same
// answers as inline, and short texts still served from the cache. (The bounded queue is tested in the guard.)

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from './setup.js';

const inList = (n: number) =>
  `SELECT count(*) AS n FROM ledger_entries WHERE amount IN (${Array.from({ length: n }, () => '1').join(',')})`;

describe.each(ENGINES)('long texts on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const query = (sql: string) =>
    live.request('POST', routePath(API_ROUTES.sqlQuery), { key: user.apiKey, body: { sql } });

  it('answers a 60,000-character query, and refuses a long one outside the dialect with the guard code', async () => {
    const ok = await query(inList(20_000));
    expect(ok.status).toBe(200);
    expect(ok.body.data.statements[0].rows).toEqual([{ n: '0' }]);
    const refused = await query(`${inList(20_000)} AND now() IS NOT NULL`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('function_not_allowed');
    // A short text, twice: the second from the cache, the same answer.
    const first = await query('SELECT count(*) AS n FROM ledger_entries');
    const again = await query('SELECT count(*) AS n FROM ledger_entries');
    expect({ ...again.body.data, clock: undefined }).toEqual({ ...first.body.data, clock: undefined });
  });
});
