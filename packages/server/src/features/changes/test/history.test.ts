// The change history (issue 16) through HTTP on both engines: every accepted write shape leaves exactly one
// record with exact row images; dry runs and replays add none; a revert restores the rows byte for byte.
import { randomUUID } from 'node:crypto';
import { pooledEngines, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  insertEntries,
  type Json,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';

describe.each([...ENGINES, ...pooledEngines('the change history tests through PgBouncer')])(
  'change history on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;
    let other: TestUser;
    let workspaceId: string;

    beforeAll(async () => {
      ({ live, user, workspaceId } = await startWithWorkspace(engine));
      other = await createUser(live.db);
      await addWorkspace(live.db, other.userId, 'Other');
    });
    afterAll(async () => live?.close());

    const sql = (path: string, body: unknown, apiKey = user.apiKey, headers: Record<string, string> = {}) =>
      live.request('POST', path, { key: apiKey, body, headers });
    const get = (path: string, apiKey = user.apiKey) => live.request('GET', path, { key: apiKey });
    const latest = async (apiKey = user.apiKey): Promise<Json[]> => {
      const res = await get(routePath(API_ROUTES.changes, {}, { limit: 100 }), apiKey);
      expect(res.status).toBe(200);
      return res.body.data.changes;
    };
    /** Every row of the workspace's four relations as the database's text form, in a stable order. */
    const snapshot = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const [table, order] of [
        ['ledger_entries', 'entry_id'],
        ['budget_lines', 'line_id'],
        ['workspace_settings', 'workspace_id'],
        ['account_metadata', 'account_id'],
      ] as const) {
        const { rows } = await live.db.query<{ t: string }>(
          `SELECT x::text AS t FROM public.${table} x WHERE workspace_id = $1 ORDER BY ${order}`,
          [workspaceId],
        );
        out.push(...rows.map((r) => `${table}:${r.t}`));
      }
      return out;
    };
    /** The rows' images as the history shows them (numbers as strings, timestamps in UTC). */
    const images = async (table: string, where: string): Promise<Json[]> =>
      live.db.transaction(async (tx) => {
        await tx.query(`SET LOCAL TimeZone = 'UTC'`);
        const { rows } = await tx.query<{ img: Json }>(
          `SELECT expense_internal.change_image_out(to_jsonb(x)) AS img FROM public.${table} x WHERE ${where}`,
        );
        return rows.map((r) => r.img);
      });
    const byKey = (a: Json, b: Json) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key));

    it('records an INSERT once with the after images of its rows', async () => {
      const before = (await latest()).length;
      const res = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(3, 'h-insert') });
      expect(res.status).toBe(200);
      const changes = await latest();
      expect(changes.length).toBe(before + 1);
      const change = changes[0];
      expect(change).toMatchObject({
        endpoint: 'execute',
        sql: insertEntries(3, 'h-insert'),
        statements: [{ table: 'ledger_entries', command: 'INSERT', rowCount: 3 }],
        by: { userId: user.userId, email: user.email, connectionId: user.connectionId, label: 'test' },
      });
      const detail = await get(routePath(API_ROUTES.change, { changeId: change.changeId }));
      expect(detail.status).toBe(200);
      const rows = detail.body.data.rows.sort(byKey);
      const now = (await images('ledger_entries', `account_id = 'h-insert'`)).map((img) => ({
        table: 'ledger_entries',
        key: { entry_id: img.entry_id },
        before: null,
        after: img,
      }));
      expect(rows).toEqual(now.sort(byKey));
      expect(rows.map((r: Json) => r.after.amount).sort()).toEqual(['1', '2', '3']);
    });

    it('records UPDATE and DELETE with before and after images', async () => {
      await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(2, 'h-upd') });
      const old = await images('ledger_entries', `account_id = 'h-upd'`);
      await sql(routePath(API_ROUTES.sqlExecute), {
        sql: `UPDATE ledger_entries SET note = 'it''s \\ done' WHERE account_id = 'h-upd'`,
      });
      const updated = await images('ledger_entries', `account_id = 'h-upd'`);
      let [change] = await latest();
      expect(change.statements).toEqual([{ table: 'ledger_entries', command: 'UPDATE', rowCount: 2 }]);
      expect(change.sql).toBe(`UPDATE ledger_entries SET note = 'it''s \\ done' WHERE account_id = 'h-upd'`);
      let rows = (await get(routePath(API_ROUTES.change, { changeId: change.changeId }))).body.data.rows;
      expect(rows.map((r: Json) => r.before).sort(byId)).toEqual(old.sort(byId));
      expect(rows.map((r: Json) => r.after).sort(byId)).toEqual(updated.sort(byId));

      await sql(routePath(API_ROUTES.sqlExecute), {
        sql: `DELETE FROM ledger_entries WHERE account_id = 'h-upd'`,
      });
      [change] = await latest();
      expect(change.statements).toEqual([{ table: 'ledger_entries', command: 'DELETE', rowCount: 2 }]);
      rows = (await get(routePath(API_ROUTES.change, { changeId: change.changeId }))).body.data.rows;
      expect(rows.map((r: Json) => r.after)).toEqual([null, null]);
      expect(rows.map((r: Json) => r.before).sort(byId)).toEqual(updated.sort(byId));
    });
    const byId = (a: Json, b: Json) => String(a.entry_id).localeCompare(String(b.entry_id));

    it('records data-modifying CTEs and scripts as one change each', async () => {
      await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(2, 'h-cte') });
      const count = (await latest()).length;
      const cte = `WITH d AS (DELETE FROM ledger_entries WHERE account_id = 'h-cte' RETURNING ts, amount, currency, kind, category)
      INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category)
      SELECT ts, 'h-cte-2', amount, currency, kind, category FROM d`;
      expect((await sql(routePath(API_ROUTES.sqlExecute), { sql: cte })).status).toBe(200);
      let changes = await latest();
      expect(changes.length).toBe(count + 1);
      expect(changes[0].statements).toEqual(
        expect.arrayContaining([
          { table: 'ledger_entries', command: 'DELETE', rowCount: 2 },
          { table: 'ledger_entries', command: 'INSERT', rowCount: 2 },
        ]),
      );
      const script = `${insertEntries(1, 'h-script')};
      UPDATE ledger_entries SET note = 'x' WHERE account_id = 'h-script';
      INSERT INTO account_metadata (account_id, display_name) VALUES ('h-script', 'Script');
      UPDATE workspace_settings SET reporting_currency = 'EUR'`;
      expect((await sql(routePath(API_ROUTES.sqlScript), { sql: script })).status).toBe(200);
      changes = await latest();
      expect(changes.length).toBe(count + 2);
      expect(changes[0].endpoint).toBe('script');
      expect(changes[0].statements).toEqual([
        { table: 'ledger_entries', command: 'INSERT', rowCount: 1 },
        { table: 'ledger_entries', command: 'UPDATE', rowCount: 1 },
        { table: 'account_metadata', command: 'INSERT', rowCount: 1 },
        { table: 'workspace_settings', command: 'UPDATE', rowCount: 1 },
      ]);
      const rows = (await get(routePath(API_ROUTES.change, { changeId: changes[0].changeId }))).body.data
        .rows;
      expect(rows.map((r: Json) => r.table)).toEqual([
        'ledger_entries',
        'ledger_entries',
        'account_metadata',
        'workspace_settings',
      ]);
      expect(rows[2].key).toEqual({ workspace_id: workspaceId, account_id: 'h-script' });
    });

    it('records nothing for a dry run or a read, and an idempotent replay once', async () => {
      const count = (await latest()).length;
      expect(
        (await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'h-dry'), dryRun: true }))
          .status,
      ).toBe(200);
      expect(
        (await sql(routePath(API_ROUTES.sqlQuery), { sql: 'SELECT count(*) FROM ledger_entries' })).status,
      ).toBe(200);
      expect((await latest()).length).toBe(count);
      const key = { 'idempotency-key': randomUUID() };
      const first = await sql(
        routePath(API_ROUTES.sqlScript),
        { sql: insertEntries(1, 'h-idem') },
        user.apiKey,
        key,
      );
      const again = await sql(
        routePath(API_ROUTES.sqlScript),
        { sql: insertEntries(1, 'h-idem') },
        user.apiKey,
        key,
      );
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      expect((await latest()).length).toBe(count + 1);
    });

    it('does not count the recording against the affected-row cap', async () => {
      // 100 rows is the cap: with the history's own rows counted, this insert would be refused.
      const res = await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(100, 'h-cap') });
      expect(res.status).toBe(200);
      expect(res.body.data.statements[0].rowCount).toBe(100);
      const [change] = await latest();
      expect(change.statements).toEqual([{ table: 'ledger_entries', command: 'INSERT', rowCount: 100 }]);
      expect(
        (await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(101, 'h-cap-2') })).body.error.code,
      ).toBe('mutation_row_limit_exceeded');
    });

    it('reverts a change byte for byte, and the revert too', async () => {
      await sql(routePath(API_ROUTES.sqlScript), {
        sql: `${insertEntries(3, 'h-rev')}; INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES ('2026-01-01', 'spend', 'rent', 'EUR', 12.50)`,
      });
      const start = await snapshot();
      const script = `UPDATE ledger_entries SET amount = amount * 2, note = 'doubled' WHERE account_id = 'h-rev';
      DELETE FROM budget_lines WHERE category = 'rent';
      ${insertEntries(2, 'h-rev-new')};
      UPDATE workspace_settings SET timezone = 'Europe/Berlin'`;
      expect((await sql(routePath(API_ROUTES.sqlScript), { sql: script })).status).toBe(200);
      const changed = await snapshot();
      expect(changed).not.toEqual(start);
      const [change] = await latest();

      const dry = await sql(routePath(API_ROUTES.revertChange, { changeId: change.changeId }), {
        dryRun: true,
      });
      expect(dry.status).toBe(200);
      expect(dry.body.data).toMatchObject({ committed: false, reverted: change.changeId, changeId: null });
      expect(dry.body.data.rows.length).toBe(3 + 1 + 2 + 1);
      expect(await snapshot()).toEqual(changed);

      const res = await sql(routePath(API_ROUTES.revertChange, { changeId: change.changeId }), {});
      expect(res.status).toBe(200);
      expect(res.body.data.committed).toBe(true);
      expect(await snapshot()).toEqual(start);
      const [revert, original] = await latest();
      expect(revert).toMatchObject({
        endpoint: 'revert',
        changeId: res.body.data.changeId,
        reverts: change.changeId,
      });
      expect(original).toMatchObject({ changeId: change.changeId, revertedBy: revert.changeId });

      const again = await sql(routePath(API_ROUTES.revertChange, { changeId: revert.changeId }), {});
      expect(again.status).toBe(200);
      expect(await snapshot()).toEqual(changed);
    });

    it('refuses a revert with 409 change_conflict when a row changed since, and changes nothing', async () => {
      await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(2, 'h-conf') });
      const [change] = await latest();
      await sql(routePath(API_ROUTES.sqlExecute), {
        sql: `UPDATE ledger_entries SET note = 'later' WHERE account_id = 'h-conf' AND amount = 2`,
      });
      const [edited] = await images('ledger_entries', `account_id = 'h-conf' AND amount = 2`);
      const before = await snapshot();
      const res = await sql(routePath(API_ROUTES.revertChange, { changeId: change.changeId }), {});
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('change_conflict');
      expect(res.body.error.details.rows).toEqual([
        {
          table: 'ledger_entries',
          key: { entry_id: edited.entry_id },
          expected: expect.any(Object),
          current: edited,
        },
      ]);
      expect(await snapshot()).toEqual(before);

      // A deleted row inserted again (same key) is a conflict too.
      await sql(routePath(API_ROUTES.sqlExecute), {
        sql: `DELETE FROM ledger_entries WHERE account_id = 'h-conf' AND amount = 1`,
      });
      const [deletion] = await latest();
      const gone = (await get(routePath(API_ROUTES.change, { changeId: deletion.changeId }))).body.data
        .rows[0].before;
      const reinsert = await sql(routePath(API_ROUTES.sqlExecute), {
        sql: `INSERT INTO ledger_entries (entry_id, ts, account_id, amount, currency, kind, category) VALUES ('${gone.entry_id}', TIMESTAMPTZ '2026-02-01 00:00:00+00', 'h-conf', 5, 'EUR', 'spend', 'x')`,
      });
      expect(reinsert.body).toMatchObject({ ok: true });
      const refused = await sql(routePath(API_ROUTES.revertChange, { changeId: deletion.changeId }), {});
      expect(refused.status).toBe(409);
      expect(refused.body.error.details.rows[0].key).toEqual({ entry_id: gone.entry_id });
    });

    it('gives the SQL role no way to read the history or open a change', async () => {
      for (const statement of [
        'SELECT count(*) FROM expense_internal.changes',
        'SELECT count(*) FROM expense_internal.change_rows',
        "SELECT expense_internal.begin_change('execute', NULL, 'forged')",
        "SELECT pg_catalog.set_config('expense.change_id', '00000000-0000-4000-8000-000000000000', true)",
      ]) {
        const error = await live.db
          .transaction(async (tx) => {
            await tx.query('SET LOCAL ROLE expense_sql');
            await tx.query(statement);
          })
          .then(
            () => undefined,
            (e: { code?: string }) => e.code,
          );
        expect({ statement, error }).toEqual({ statement, error: '42501' });
      }
    });

    it("hides another workspace's history (404) and lists none of it", async () => {
      await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'h-mine') });
      const [mine] = await latest();
      expect((await latest(other.apiKey)).map((c) => c.changeId)).not.toContain(mine.changeId);
      for (const res of [
        await get(routePath(API_ROUTES.change, { changeId: mine.changeId }), other.apiKey),
        await sql(routePath(API_ROUTES.revertChange, { changeId: mine.changeId }), {}, other.apiKey),
        await sql(routePath(API_ROUTES.revertChange, { changeId: mine.changeId }), {}, other.apiKey, {
          'x-workspace-id': workspaceId,
        }),
      ]) {
        expect([404]).toContain(res.status);
      }
      expect(await images('ledger_entries', `account_id = 'h-mine'`)).toHaveLength(1);
    });

    it('pages with before and limit, and replays a revert with the same Idempotency-Key', async () => {
      const page = await get(routePath(API_ROUTES.changes, {}, { limit: 2 }));
      expect(page.body.data.changes).toHaveLength(2);
      const next = await get(
        routePath(API_ROUTES.changes, {}, { limit: 2, before: page.body.data.changes[1].changeId }),
      );
      expect(next.body.data.changes[0].changeId).not.toBe(page.body.data.changes[1].changeId);

      await sql(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(1, 'h-idem-rev') });
      const [change] = await latest();
      const key = { 'idempotency-key': randomUUID() };
      const first = await sql(
        routePath(API_ROUTES.revertChange, { changeId: change.changeId }),
        {},
        user.apiKey,
        key,
      );
      const count = (await latest()).length;
      const again = await sql(
        routePath(API_ROUTES.revertChange, { changeId: change.changeId }),
        {},
        user.apiKey,
        key,
      );
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      expect((await latest()).length).toBe(count);
    });
  },
);
