// Issue 13, point 1: an agent without a clock learns today's date, in the workspace's time zone, from every
// SQL result, /me and /schema, and the refusal of NOW()/CURRENT_DATE quotes it.
import { createGuard } from '@expense/sql-guard';
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGuarded } from '../../sql/pipeline.js';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';

const HOUR_MS = 3_600_000;
/** The date `hours` after an instant (zones without daylight saving: a fixed offset). */
const dateAt = (iso: string, hours: number) =>
  new Date(Date.parse(iso) + hours * HOUR_MS).toISOString().slice(0, 10);

describe.each(ENGINES)('the clock on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const sql = (path: string, text: string) =>
    live.request('POST', path, { key: user.apiKey, body: { sql: text } });

  it("carries now, today and the workspace's time zone on every SQL result", async () => {
    const before = Date.now();
    const read = await sql(routePath(API_ROUTES.sqlQuery), 'SELECT 1 AS x');
    expect(read.status).toBe(200);
    const clock = read.body.data.clock;
    expect(clock.timeZone).toBe('UTC');
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(before - 1000);
    expect(clock.now).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(clock.today).toBe(clock.now.slice(0, 10));

    // UTC+14 and UTC-11 (no daylight saving): 25 hours apart, so their dates always differ.
    const east = await sql(
      routePath(API_ROUTES.sqlExecute),
      "UPDATE workspace_settings SET timezone = 'Pacific/Kiritimati'",
    );
    expect(east.status).toBe(200);
    const inEast = (await sql(routePath(API_ROUTES.sqlQuery), 'SELECT 1 AS x')).body.data.clock;
    expect(inEast.timeZone).toBe('Pacific/Kiritimati');
    expect(inEast.today).toBe(dateAt(inEast.now, 14));

    await sql(
      routePath(API_ROUTES.sqlScript),
      "UPDATE workspace_settings SET timezone = 'Pacific/Pago_Pago'; SELECT 1 AS x",
    );
    const script = await sql(routePath(API_ROUTES.sqlScript), 'SELECT 1 AS x; SELECT 2 AS y');
    const inWest = script.body.data.clock;
    expect(inWest.timeZone).toBe('Pacific/Pago_Pago');
    expect(inWest.today).toBe(dateAt(inWest.now, -11));
    expect(inWest.today < inEast.today).toBe(true);

    const dry = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      body: { sql: 'UPDATE workspace_settings SET note_missing = 1', dryRun: true },
    });
    expect(dry.status).toBe(400); // an unknown column: refused, so no clock (errors carry none)
    const dryRun = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      body: { sql: 'UPDATE workspace_settings SET first_day_of_week = 1', dryRun: true },
    });
    expect(dryRun.body.data).toMatchObject({ committed: false, clock: { timeZone: 'Pacific/Pago_Pago' } });
  });

  it('gives the same clock on /me (selected workspace, else UTC) and /schema', async () => {
    const other = await createUser(live.db);
    const me = await call(live, API_ROUTES.me, { key: other.apiKey });
    expect(me.body.data.clock).toMatchObject({ timeZone: 'UTC', today: me.body.data.clock.now.slice(0, 10) });

    const ws = await addWorkspace(live.db, other.userId, 'Tokyo');
    await call(live, API_ROUTES.selectWorkspace, { params: { workspaceId: ws }, key: other.apiKey });
    await call(live, API_ROUTES.sqlExecute, {
      key: other.apiKey,
      body: { sql: "UPDATE workspace_settings SET timezone = 'Asia/Tokyo'" },
    });
    const selected = (await call(live, API_ROUTES.me, { key: other.apiKey })).body.data.clock;
    expect(selected.timeZone).toBe('Asia/Tokyo');
    expect(selected.today).toBe(dateAt(selected.now, 9));

    const schema = (await call(live, API_ROUTES.schema, { key: other.apiKey })).body.data.clock;
    expect(schema).toMatchObject({ timeZone: 'Asia/Tokyo', today: dateAt(schema.now, 9) });
    // X-Workspace-Id picks the workspace, as on the SQL endpoints.
    const own = await call(live, API_ROUTES.schema, {
      key: user.apiKey,
      headers: { 'x-workspace-id': workspaceId },
    });
    expect(own.body.data.clock.timeZone).toBe('Pacific/Pago_Pago');
  });

  it("quotes today's date in the workspace's zone when NOW() or CURRENT_DATE is refused", async () => {
    await sql(
      routePath(API_ROUTES.sqlExecute),
      "UPDATE workspace_settings SET timezone = 'Pacific/Kiritimati'",
    );
    for (const text of [
      'SELECT * FROM ledger_entries WHERE ts >= NOW()',
      'SELECT CURRENT_DATE AS d',
      'SELECT CURRENT_TIMESTAMP AS t',
      'SELECT LOCALTIMESTAMP AS t',
    ]) {
      const refused = await sql(routePath(API_ROUTES.sqlQuery), text);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('function_not_allowed');
      const today = dateAt(new Date().toISOString(), 14);
      const hint: string = refused.body.error.hint;
      expect(hint).toContain(`today is ${today} in Pacific/Kiritimati`);
      expect(hint).toContain(`DATE '${today}'`);
      expect(hint).not.toContain('2026-08-09');
      // The literal the hint suggests runs.
      const range = /ts >= (TIMESTAMPTZ '[^']+') AND ts < (TIMESTAMPTZ '[^']+')/.exec(hint);
      expect(range).not.toBeNull();
      const ran = await sql(
        routePath(API_ROUTES.sqlQuery),
        `SELECT count(*) AS n FROM ledger_entries WHERE ts >= ${range?.[1]} AND ts < ${range?.[2]}`,
      );
      expect(ran.status).toBe(200);
    }
  });

  it('reads the time zone in the first round trip: a query is still one batch', async () => {
    const guard = await createGuard();
    let batches = 0;
    const result = await runGuarded(
      live.db,
      guard,
      { userId: user.userId, workspaceId, readOnly: true },
      {
        mode: 'query',
        sql: 'SELECT count(*) AS n FROM ledger_entries',
        dryRun: false,
        observe: (session) => ({
          ...session,
          queryBatch: (text: string, info?: { last: boolean }) => {
            batches++;
            return session.queryBatch?.(text, info) ?? Promise.resolve([]);
          },
        }),
      },
      async (run, scope) => ({ run, timeZone: scope.timeZone }),
    );
    expect(batches).toBe(1);
    expect(result.timeZone).toBe('Pacific/Kiritimati');
    expect(result.run.statements[0]?.rows).toEqual([{ n: '0' }]);
  });
});
