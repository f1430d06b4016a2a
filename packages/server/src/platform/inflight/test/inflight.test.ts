// Finding 1 of issue 11: nothing limited how many SQL requests a key or a user had in flight, so ten slow
// queries of one tenant held every pooled connection. Now: 2 per key, 4 per user, 429 beyond. The places are
// counted in Redis under the test's own prefix, so that the test waits for them to be taken, not for a time.

import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, request } from '../../../features/sql/test/setup.js';
import {
  answerCounter,
  ENDLESS,
  LeaseProbe,
  OVER_CAP,
  query,
  startFair,
  type Tenant,
  tenant,
} from './helpers.js';

describe.each(ENGINES)('in-flight limits over HTTP on $name', (engine) => {
  let live: Live;
  let attacker: Tenant;
  let bystander: Tenant;
  const leases = new LeaseProbe();

  beforeAll(async () => {
    live = await startFair(engine, { sqlDeadlineMs: 3_000, ...leases.config });
    attacker = await tenant(live, 3);
    bystander = await tenant(live, 1);
  });
  afterAll(async () => {
    await live?.close();
    await leases.close();
  });

  it('counts a report as a SQL request in flight: with the user’s 4 places taken, GET /reports answers 429 at once', async () => {
    const slow = Array.from({ length: 4 }, (_, i) => query(live, attacker.keys[i % 2] as string, ENDLESS));
    await leases.until(attacker.user.userId, 4);
    const report = await call(live, API_ROUTES.report, {
      params: { kind: 'spend_by_category' },
      query: { from: '2026-11-01', to: '2026-11-30' },
      key: attacker.keys[2] as string,
    });
    expect(report.status).toBe(429);
    expect(report.body.error).toMatchObject({
      code: 'too_many_concurrent_requests',
      details: { scope: 'user' },
    });
    await Promise.all(slow);
    // Every place is free again: the report is admitted (never 429) and answers 200. On the embedded engine the
    // first ones may still queue behind the restarts after the four deadlines, or run on a cold engine (on a
    // loaded machine, several times), and be answered at their own deadline (504, retryable): it is sent again
    // until it answers.
    const again = () =>
      call(live, API_ROUTES.report, {
        params: { kind: 'spend_by_category' },
        query: { from: '2026-11-01', to: '2026-11-30' },
        key: attacker.keys[2] as string,
      });
    let after = await again();
    for (let attempt = 1; attempt < 10 && after.status === 504 && engine.name === 'PGlite'; attempt++) {
      expect(after.body.error.code).toBe('deadline_exceeded');
      after = await again();
    }
    expect(after.status).toBe(200);
  });

  it('gives one user with three keys at most 4 of 12 slow statements; the rest 429 at once, others keep answering', async () => {
    const answered = answerCounter();
    const attack = Array.from({ length: 12 }, (_, i) =>
      answered(query(live, attacker.keys[i % 3] as string, ENDLESS)),
    );
    // Another tenant's SELECT and /v1/me while the attack is in flight.
    const other = answered(query(live, bystander.keys[0] as string, 'SELECT 1 AS one'));
    const me = answered(live.request('GET', routePath(API_ROUTES.me), { key: bystander.keys[0] as string }));
    const results = await Promise.all(attack);
    expect((await me).status).toBe(200);
    const otherAnswer = await other;
    if (engine.name === 'PostgreSQL') expect(otherAnswer.status).toBe(200);
    else if (otherAnswer.status !== 200) {
      // The embedded engine runs one statement at a time: a bystander arriving with the attack waits for
      // the one attacker statement that runs (to its deadline, then the engine restarts) and no more; by then
      // its own deadline may have passed, and it is answered at its deadline without having run.
      expect(otherAnswer.status).toBe(504);
      expect(otherAnswer.body.error.message).toMatch(/could not start/);
    }

    const refused = results.filter((r) => r.status === 429);
    const admitted = results.filter((r) => r.status !== 429);
    expect(admitted).toHaveLength(4);
    expect(refused).toHaveLength(8);
    for (const r of admitted) expect(r.body.error.code).toBe('deadline_exceeded');
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('1');
      // It passed the rate limits (and spent a point): their fields are on it like on a success.
      expect(r.headers.get('ratelimit')).toMatch(/^"(burst|daily)";r=\d+;t=\d+$/);
      expect(r.body.error).toMatchObject({
        code: 'too_many_concurrent_requests',
        retryable: true,
        details: { limit: expect.any(Number), retryAfterSeconds: 1 },
      });
      expect(['key', 'user']).toContain(r.body.error.details.scope);
      expect(r.body.error.hint).toMatch(/Retry-After/);
    }
    // Refusals answer at once: every 429 came before the first admitted request's answer.
    const firstAdmitted = Math.min(...admitted.map((r) => r.order));
    for (const r of refused) expect(r.order).toBeLessThan(firstAdmitted);
  });

  it('limits one key to 2 and counts every key of the user towards 4', async () => {
    await live.db.ping();
    const [k1, k2, k3] = attacker.keys as [string, string, string];
    const first = [query(live, k1, ENDLESS), query(live, k1, ENDLESS)];
    await leases.until(attacker.user.userId, 2);
    const third = await query(live, k1, 'SELECT 1 AS one');
    expect(third.status).toBe(429);
    expect(third.body.error.details).toMatchObject({ scope: 'key', limit: 2 });
    const others = [query(live, k2, ENDLESS), query(live, k2, ENDLESS)];
    await leases.until(attacker.user.userId, 4);
    const fifth = await query(live, k3, 'SELECT 1 AS one');
    expect(fifth.status).toBe(429);
    expect(fifth.body.error.details).toMatchObject({ scope: 'user', limit: 4 });
    await Promise.all([...first, ...others]);
    await live.db.ping();
  });

  it('releases the place in every outcome: success, SQL error, refusal by the database, deadline, client abort', async () => {
    const key = attacker.keys[2] as string;
    // More requests one after another than the limit: each must have given its place back.
    for (let i = 0; i < 3; i++) expect((await query(live, key, 'SELECT 1 AS one')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await query(live, key, 'SELECT 1 / 0 AS x')).status).toBe(400);
    for (let i = 0; i < 3; i++) {
      const r = await live.request('POST', routePath(API_ROUTES.sqlExecute), {
        key,
        body: { sql: OVER_CAP },
      });
      expect(r.body.error.code).toBe('mutation_row_limit_exceeded');
    }
    for (let i = 0; i < 3; i++) {
      expect((await query(live, key, ENDLESS)).status).toBe(504);
      await live.db.ping(); // the embedded engine restarts after an interrupted statement
    }
    // Clients that go away: their requests end at the deadline and give their places back.
    const aborts = Array.from({ length: 2 }, () => new AbortController());
    const gone = aborts.map((a) =>
      fetch(`${live.origin}${routePath(API_ROUTES.sqlQuery)}`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sql: ENDLESS }),
        signal: a.signal,
      }).catch(() => undefined),
    );
    await leases.until(attacker.user.userId, 2);
    for (const a of aborts) a.abort();
    await Promise.all(gone);
    const statuses: number[] = [];
    await expect
      .poll(
        async () => {
          const r = await request(live.origin, 'POST', routePath(API_ROUTES.sqlQuery), {
            key,
            body: { sql: 'SELECT 1 AS one' },
          });
          statuses.push(r.status);
          return r.status;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(200);
    // 429 while the abandoned requests still run; on the embedded engine a request may also wait for the
    // restart after their interruption and meet its own deadline (504).
    for (const status of statuses) expect([200, 429, 504]).toContain(status);
  });
});
