// Issue 23, item 1: SQL runs in the workspace's time zone (TimeZone set for the transaction in the first round
// trip), on every engine and behind PgBouncer: DATE literals are local midnight, ts::date is the local day, and
// timestamps come back with the local offset, across the daylight-saving changes of Europe/Berlin and
// America/New_York.

import { guide } from '@expense/mcp/guide';
import { pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, ENGINES, type Live, startWithWorkspace, type TestUser } from './setup.js';

describe.each([...ENGINES, ...pooledEngines('the time zone tests through PgBouncer')])(
  'SQL in the workspace time zone on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;
    let berlin: string;
    let newYork: string;
    let utc: string;

    const sql = (workspace: string, path: string, text: string) =>
      live.request('POST', path, {
        key: user.apiKey,
        body: { sql: text },
        headers: { 'x-workspace-id': workspace },
      });
    const rows = async (workspace: string, text: string) => {
      const res = await sql(workspace, routePath(API_ROUTES.sqlQuery), text);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.statements[0].rows as Record<string, unknown>[];
    };

    const insert = (instants: string[]) =>
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ${instants
        .map((t) => `(TIMESTAMPTZ '${t}', 'checking', -1, 'EUR', 'spend', 'test', '${t}')`)
        .join(', ')}`;

    beforeAll(async () => {
      ({ live, user, workspaceId: berlin } = await startWithWorkspace(engine));
      newYork = await addWorkspace(live.db, user.userId, 'New York');
      utc = await addWorkspace(live.db, user.userId, 'UTC');
      for (const [ws, zone] of [
        [berlin, 'Europe/Berlin'],
        [newYork, 'America/New_York'],
      ] as const) {
        const set = await sql(
          ws,
          routePath(API_ROUTES.sqlExecute),
          `UPDATE workspace_settings SET timezone = '${zone}'`,
        );
        expect(set.status).toBe(200);
      }
    });
    afterAll(async () => live?.close());

    it('counts 2026-11-30T23:30Z as December in Berlin: DATE literals and ::date are local', async () => {
      for (const ws of [berlin, utc]) {
        expect(
          (await sql(ws, routePath(API_ROUTES.sqlExecute), insert(['2026-11-30 23:30:00+00']))).status,
        ).toBe(200);
      }
      const inBerlin = await rows(
        berlin,
        "SELECT ts, ts::date AS day FROM ledger_entries WHERE ts >= DATE '2026-12-01' AND ts < DATE '2027-01-01'",
      );
      expect(inBerlin).toEqual([{ ts: '2026-12-01T00:30:00.000+01:00', day: '2026-12-01' }]);
      const inUtc = await rows(
        utc,
        "SELECT ts, ts::date AS day FROM ledger_entries WHERE ts >= DATE '2026-11-01' AND ts < DATE '2026-12-01'",
      );
      expect(inUtc).toEqual([{ ts: '2026-11-30T23:30:00.000+00:00', day: '2026-11-30' }]);
    });

    it("counts it as December in the guide's recipes, and a TIMESTAMPTZ literal without offset is local", async () => {
      const recipes = [...guide('recipes', 'http').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
      const spending = recipes[0]!
        .replaceAll('2026-08-01', '2026-12-01')
        .replaceAll('2026-09-01', '2027-01-01');
      expect(await rows(berlin, spending)).toEqual([{ category: 'test', currency: 'EUR', spent: '1' }]);
      const trend = recipes[4]!
        .replaceAll('2026-07-01', '2026-11-01')
        .replaceAll('2026-08-01', '2026-12-01')
        .replaceAll('2026-09-01', '2027-01-01');
      expect(await rows(berlin, trend)).toEqual([
        { month: '2026-11-01', currency: null, net: '0' },
        { month: '2026-12-01', currency: 'EUR', net: '-1' },
      ]);
      expect(await rows(berlin, "SELECT TIMESTAMPTZ '2026-12-01 00:00:00' AS t")).toEqual([
        { t: '2026-12-01T00:00:00.000+01:00' },
      ]);
    });

    it("follows Berlin's daylight-saving changes", async () => {
      await sql(
        berlin,
        routePath(API_ROUTES.sqlExecute),
        insert([
          '2026-03-29 00:59:59+00', // 01:59:59 CET
          '2026-03-29 01:00:00+00', // 03:00:00 CEST
          '2026-10-25 00:30:00+00', // 02:30 CEST
          '2026-10-25 01:30:00+00', // 02:30 CET, the repeated hour
          '2026-03-28 23:00:00+00', // local midnight of 29 March
        ]),
      );
      const got = await rows(
        berlin,
        "SELECT note, ts, ts::date AS day FROM ledger_entries WHERE ts >= DATE '2026-03-29' AND ts < DATE '2026-03-30' OR ts::date = DATE '2026-10-25' ORDER BY ts",
      );
      expect(got).toEqual([
        { note: '2026-03-28 23:00:00+00', ts: '2026-03-29T00:00:00.000+01:00', day: '2026-03-29' },
        { note: '2026-03-29 00:59:59+00', ts: '2026-03-29T01:59:59.000+01:00', day: '2026-03-29' },
        { note: '2026-03-29 01:00:00+00', ts: '2026-03-29T03:00:00.000+02:00', day: '2026-03-29' },
        { note: '2026-10-25 00:30:00+00', ts: '2026-10-25T02:30:00.000+02:00', day: '2026-10-25' },
        { note: '2026-10-25 01:30:00+00', ts: '2026-10-25T02:30:00.000+01:00', day: '2026-10-25' },
      ]);
      // The day of the change has 23 and 25 hours.
      const length = await rows(
        berlin,
        "SELECT (DATE '2026-03-30')::timestamptz - (DATE '2026-03-29')::timestamptz AS spring, (DATE '2026-10-26')::timestamptz - (DATE '2026-10-25')::timestamptz AS autumn",
      );
      expect(length).toEqual([{ spring: '23:00:00', autumn: '1 day 01:00:00' }]);
    });

    it("follows New York's daylight-saving changes", async () => {
      await sql(
        newYork,
        routePath(API_ROUTES.sqlExecute),
        insert([
          '2026-03-08 04:59:00+00', // 23:59 EST on 7 March
          '2026-03-08 05:00:00+00', // midnight EST of 8 March
          '2026-03-08 07:00:00+00', // 03:00 EDT
          '2026-11-01 05:30:00+00', // 01:30 EDT
          '2026-11-01 06:30:00+00', // 01:30 EST, the repeated hour
        ]),
      );
      const got = await rows(
        newYork,
        "SELECT ts, ts::date AS day FROM ledger_entries WHERE ts >= DATE '2026-03-07' AND ts < DATE '2026-03-09' OR ts::date = DATE '2026-11-01' ORDER BY ts",
      );
      expect(got).toEqual([
        { ts: '2026-03-07T23:59:00.000-05:00', day: '2026-03-07' },
        { ts: '2026-03-08T00:00:00.000-05:00', day: '2026-03-08' },
        { ts: '2026-03-08T03:00:00.000-04:00', day: '2026-03-08' },
        { ts: '2026-11-01T01:30:00.000-04:00', day: '2026-11-01' },
        { ts: '2026-11-01T01:30:00.000-05:00', day: '2026-11-01' },
      ]);
    });

    it('keeps each request in its own zone (nothing leaks between transactions on a connection)', async () => {
      for (let i = 0; i < 6; i++) {
        // Two at a time (a key's in-flight limit), in changing pairs.
        const pair = [berlin, utc, newYork, berlin].slice(i % 3, (i % 3) + 2);
        const got = await Promise.all(
          pair.map((ws) => rows(ws, "SELECT TIMESTAMPTZ '2026-07-01 12:00:00+00' AS t")),
        );
        const [b, u, n] = await Promise.all([
          rows(berlin, "SELECT TIMESTAMPTZ '2026-07-01 12:00:00+00' AS t"),
          rows(utc, "SELECT TIMESTAMPTZ '2026-07-01 12:00:00+00' AS t"),
        ]).then(async (two) => [
          ...two,
          await rows(newYork, "SELECT TIMESTAMPTZ '2026-07-01 12:00:00+00' AS t"),
        ]);
        expect(got.map((r) => String(r[0]?.t).slice(-6))).toEqual(
          pair.map((ws) => (ws === berlin ? '+02:00' : ws === utc ? '+00:00' : '-04:00')),
        );
        expect([b?.[0]?.t, u?.[0]?.t, n?.[0]?.t]).toEqual([
          '2026-07-01T14:00:00.000+02:00',
          '2026-07-01T12:00:00.000+00:00',
          '2026-07-01T08:00:00.000-04:00',
        ]);
      }
      // A script and a write's RETURNING too.
      const script = await sql(
        berlin,
        routePath(API_ROUTES.sqlScript),
        `${insert(['2026-01-15 23:30:00+00'])} RETURNING ts, ts::date AS day; SELECT ts::date AS day FROM ledger_entries WHERE note = '2026-01-15 23:30:00+00'`,
      );
      expect(script.status).toBe(200);
      expect(script.body.data.statements[0].rows).toEqual([
        { ts: '2026-01-16T00:30:00.000+01:00', day: '2026-01-16' },
      ]);
      expect(script.body.data.statements[1].rows).toEqual([{ day: '2026-01-16' }]);
    });

    it('says which zone SQL uses: data.clock and /schema', async () => {
      const res = await sql(berlin, routePath(API_ROUTES.sqlQuery), 'SELECT 1 AS x');
      expect(res.body.data.clock.timeZone).toBe('Europe/Berlin');
      const schema = await live.request('GET', routePath(API_ROUTES.schema), {
        key: user.apiKey,
        headers: { 'x-workspace-id': berlin },
      });
      expect(schema.body.data.clock.timeZone).toBe('Europe/Berlin');
      expect(schema.body.instructions.join(' ')).toContain('SQL runs in Europe/Berlin');
    });
  },
);
