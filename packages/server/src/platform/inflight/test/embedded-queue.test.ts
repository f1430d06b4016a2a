// Finding 2 of issue 11: on the embedded engine one user's slow statements queued everyone first come first
// served (a bystander waited 72 s), and the deadline counted from when a statement started, not from the
// request's arrival. Now users take turns, and a request that cannot start by its deadline runs nothing.

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live } from '../../../features/sql/test/setup.js';
import {
  answerCounter,
  ENDLESS,
  query,
  SLOW,
  SLOW_WRITE,
  SLOW_WRITE_MARK,
  startFair,
  type Tenant,
  tenant,
  untilRunning,
} from './helpers.js';

describe.each(ENGINES)('fair turns on $name', (engine) => {
  let live: Live;
  let attacker: Tenant;
  let bystander: Tenant;

  beforeAll(async () => {
    // A deadline long enough that every SLOW statement finishes: only the order is under test.
    live = await startFair(engine, { sqlDeadlineMs: 60_000 });
    attacker = await tenant(live, 2);
    bystander = await tenant(live, 1);
  });
  afterAll(async () => live?.close());

  it("answers a bystander's SELECT before the attacker's queued statements", async () => {
    const answered = answerCounter();
    const attack = Array.from({ length: 4 }, (_, i) =>
      answered(query(live, attacker.keys[i % 2] as string, SLOW)),
    );
    // The first of them runs on the embedded engine, the other three wait for their turn.
    await untilRunning(live.db, { waiting: 3 });
    const other = answered(query(live, bystander.keys[0] as string, 'SELECT 1 AS one'));
    const results = await Promise.all(attack);
    const mine = await other;
    // A read that had its one-second slice while the bystander waited may be stopped (504, "other users were
    // waiting"); none is refused otherwise.
    for (const r of results) {
      if (r.status !== 200) expect(r.body.error.message).toMatch(/because other users were waiting/);
    }
    expect(mine.status).toBe(200);
    // At most the attacker's statement already running is answered before the bystander.
    expect(results.filter((r) => r.order < mine.order).length).toBeLessThanOrEqual(1);
  });
});

describe.each(ENGINES)('deadline counted from arrival on $name', (engine) => {
  let live: Live;
  let attacker: Tenant;

  beforeAll(async () => {
    live = await startFair(engine, { sqlDeadlineMs: 3_000 });
    attacker = await tenant(live, 2);
  });
  afterAll(async () => live?.close());

  it('answers every slow request by its deadline; one that waited past it runs nothing', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => query(live, attacker.keys[i % 2] as string, ENDLESS)),
    );
    for (const r of results) {
      expect(r.status).toBe(504);
      expect(r.body.error).toMatchObject({ code: 'deadline_exceeded', details: { deadlineMs: 3_000 } });
    }
    const ran = results.filter((r) => /did not finish/.test(r.body.error.message));
    const waited = results.filter((r) => /could not start/.test(r.body.error.message));
    expect(ran.length + waited.length).toBe(4);
    if (engine.name === 'PGlite') {
      // One statement at a time: the first runs to the deadline, the three behind it never start.
      expect(ran).toHaveLength(1);
      expect(waited).toHaveLength(3);
      for (const r of waited) {
        expect(r.body.error.message).toMatch(/ran no SQL/);
        expect(r.body.error.details.statementIndex).toBeUndefined();
      }
    }
    await live.db.ping();
    // The database still answers afterwards.
    expect((await query(live, attacker.keys[0] as string, 'SELECT 1 AS one')).status).toBe(200);
  });
});

describe.each(ENGINES)('a fair share while others wait on $name', (engine) => {
  let live: Live;
  let attacker: Tenant;
  let bystander: Tenant;

  beforeAll(async () => {
    live = await startFair(engine, { sqlDeadlineMs: 8_000 });
    attacker = await tenant(live, 1);
    bystander = await tenant(live, 1);
  });
  afterAll(async () => live?.close());

  it("stops a read that ran its one-second slice while another user waited, and answers the other user's SELECT", async () => {
    const slow = query(live, attacker.keys[0] as string, ENDLESS);
    await untilRunning(live.db);
    const other = await query(live, bystander.keys[0] as string, 'SELECT 1 AS one');
    const stopped = await slow;
    expect(other.status).toBe(200);
    expect(stopped.status).toBe(504);
    expect(stopped.body.error.code).toBe('deadline_exceeded');
    if (engine.name === 'PGlite') {
      expect(stopped.body.error.message).toMatch(/stopped after 1000 ms because other users were waiting/);
      expect(stopped.body.error.hint).toMatch(/busy with other users.*in a moment/);
    } else {
      // PostgreSQL runs both at once: the slow one meets its own deadline, the other never waited.
      expect(stopped.body.error.message).toMatch(/did not finish within 8000 ms/);
    }
  });

  it("stops a write that ran its one-second slice while another user waited, rolls it back, and answers the other user's SELECT", async () => {
    // Issue 35: one user's writes that ran to the deadline held the embedded engine for everyone (another user's
    // SELECT 1 took 20 s or more, or 504). A write now gets the same slice as a read.
    const slow = live.request('POST', routePath(API_ROUTES.sqlScript), {
      key: attacker.keys[0] as string,
      body: { sql: SLOW_WRITE },
    });
    await untilRunning(live.db);
    const other = await query(live, bystander.keys[0] as string, 'SELECT 1 AS one');
    const stopped = await slow;
    expect(other.status).toBe(200);
    expect(other.body.data.statements[0].rows).toEqual([{ one: 1 }]);
    expect(stopped.status).toBe(504);
    expect(stopped.body.error).toMatchObject({ code: 'deadline_exceeded', retryable: true });
    if (engine.name === 'PGlite') {
      expect(stopped.body.error.message).toMatch(
        /stopped after 1000 ms because other users were waiting, and rolled back: the embedded database was busy/,
      );
      expect(stopped.body.error.hint).toMatch(/busy with other users.*smaller/);
    } else {
      expect(stopped.body.error.message).toMatch(/did not finish within 8000 ms/);
    }
    // Nothing of the stopped write is kept: its first statement's row is gone with it.
    const kept = await query(
      live,
      attacker.keys[0] as string,
      `SELECT count(*) AS n FROM ledger_entries WHERE category = '${SLOW_WRITE_MARK}'`,
    );
    expect(kept.status).toBe(200);
    expect(Number(kept.body.data.statements[0].rows[0].n)).toBe(0);
  });

  it('lets a read run to its deadline when nobody else waits', async () => {
    await live.db.ping();
    const alone = await query(live, attacker.keys[0] as string, ENDLESS);
    expect(alone.status).toBe(504);
    expect(alone.body.error.message).toMatch(/did not finish within 8000 ms/);
  });
});
