// Two users in two workspaces send random reads and writes through every SQL endpoint; neither ever sees or
// changes the other's rows, and the database always equals a simple model of what each was allowed to do.

import { call, pooledEngines } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, ENGINES, type Live, startLive, type TestUser } from './setup.js';

type Who = 0 | 1;
type SqlRoute = 'sqlQuery' | 'sqlExecute' | 'sqlScript';
type Op =
  | { who: Who; kind: 'insert'; account: string; amount: number; route: 'sqlExecute' | 'sqlScript' }
  | { who: Who; kind: 'update' | 'delete'; account: string }
  | { who: Who; kind: 'read'; route: 'sqlQuery' | 'sqlScript' }
  | { who: Who; kind: 'foreignUpdate' | 'foreignDelete' | 'foreignInsert' | 'foreignHeader' | 'foreignRead' };

const who = fc.constantFrom<Who>(0, 1);
const account = fc.constantFrom('cash', 'bank', 'card');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    who,
    kind: fc.constant('insert' as const),
    account,
    amount: fc.integer({ min: 1, max: 999 }),
    route: fc.constantFrom('sqlExecute' as const, 'sqlScript' as const),
  }),
  fc.record({ who, kind: fc.constantFrom('update' as const, 'delete' as const), account }),
  fc.record({
    who,
    kind: fc.constant('read' as const),
    route: fc.constantFrom('sqlQuery' as const, 'sqlScript' as const),
  }),
  fc.record({
    who,
    kind: fc.constantFrom(
      'foreignUpdate' as const,
      'foreignDelete' as const,
      'foreignInsert' as const,
      'foreignHeader' as const,
      'foreignRead' as const,
    ),
  }),
);

interface Row {
  account: string;
  amount: string;
  note: string | null;
}
const key = (r: Row) => `${r.account}|${r.amount}|${r.note}`;
const sorted = (rows: Row[]) => rows.map(key).sort();

describe.each([...ENGINES, ...pooledEngines('the isolation tests through PgBouncer')])(
  'workspace isolation through the SQL endpoints on $name',
  (engine) => {
    let live: Live;
    const users: TestUser[] = [];
    const workspaces: string[] = [];

    beforeAll(async () => {
      live = await startLive(engine);
      for (const name of ['A', 'B']) {
        const user = await createUser(live.db);
        users.push(user);
        workspaces.push(await addWorkspace(live.db, user.userId, name));
      }
    });
    afterAll(async () => live?.close());

    /** Sends SQL to one of the SQL routes, named by the op so a counterexample reads as the route's name. */
    const send = (w: Who, route: SqlRoute, sql: string, headers: Record<string, string> = {}) =>
      call(live, API_ROUTES[route], { key: users[w]!.apiKey, body: { sql }, headers });
    const insertSql = (acc: string, amount: number, ws?: string) =>
      `INSERT INTO ledger_entries (${ws ? 'workspace_id, ' : ''}ts, account_id, amount, currency, kind) VALUES (${ws ? `'${ws}', ` : ''}TIMESTAMPTZ '2026-03-01 00:00:00+00', '${acc}', ${amount}, 'EUR', 'income')`;

    it('keeps every row in its workspace', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
          await live.db.query('DELETE FROM public.ledger_entries');
          const model: Row[][] = [[], []];
          for (const o of ops) {
            const other = (1 - o.who) as Who;
            const mine = model[o.who]!;
            switch (o.kind) {
              case 'insert': {
                const res = await send(o.who, o.route, insertSql(o.account, o.amount));
                expect(res.status).toBe(200);
                mine.push({ account: o.account, amount: String(o.amount), note: null });
                break;
              }
              case 'update': {
                const res = await send(
                  o.who,
                  'sqlExecute',
                  `UPDATE ledger_entries SET note = 'seen' WHERE account_id = '${o.account}'`,
                );
                const hit = mine.filter((r) => r.account === o.account);
                expect(res.body.data.statements[0].rowCount).toBe(hit.length);
                for (const r of hit) r.note = 'seen';
                break;
              }
              case 'delete': {
                const res = await send(
                  o.who,
                  'sqlScript',
                  `DELETE FROM ledger_entries WHERE account_id = '${o.account}'`,
                );
                expect(res.body.data.statements[0].rowCount).toBe(
                  mine.filter((r) => r.account === o.account).length,
                );
                model[o.who] = mine.filter((r) => r.account !== o.account);
                break;
              }
              case 'read': {
                const res = await send(
                  o.who,
                  o.route,
                  'SELECT workspace_id, account_id AS account, amount, note FROM ledger_entries',
                );
                const rows = res.body.data.statements[0].rows as (Row & { workspace_id: string })[];
                expect(new Set(rows.map((r) => r.workspace_id))).toEqual(
                  new Set(rows.length ? [workspaces[o.who]] : []),
                );
                expect(sorted(rows)).toEqual(sorted(mine));
                break;
              }
              case 'foreignUpdate': {
                const res = await send(
                  o.who,
                  'sqlExecute',
                  `UPDATE ledger_entries SET note = 'stolen' WHERE workspace_id = '${workspaces[other]}'`,
                );
                expect(res.body.data.statements[0].rowCount).toBe(0);
                break;
              }
              case 'foreignDelete': {
                const res = await send(
                  o.who,
                  'sqlScript',
                  `DELETE FROM ledger_entries WHERE workspace_id <> '${workspaces[o.who]}'`,
                );
                expect(res.body.data.statements[0].rowCount).toBe(0);
                break;
              }
              case 'foreignInsert': {
                const res = await send(o.who, 'sqlExecute', insertSql('planted', 1, workspaces[other]));
                expect(res.status).toBe(400);
                expect(res.body.error.code).toBe('sql_execution_failed');
                break;
              }
              case 'foreignHeader': {
                const res = await send(o.who, 'sqlQuery', 'SELECT count(*) AS n FROM ledger_entries', {
                  'x-workspace-id': workspaces[other]!,
                });
                expect(res.status).toBe(404);
                expect(res.body.error.code).toBe('workspace_not_found');
                break;
              }
              case 'foreignRead': {
                const res = await send(
                  o.who,
                  'sqlQuery',
                  `SELECT count(*) AS n FROM ledger_entries WHERE workspace_id = '${workspaces[other]}'`,
                );
                expect(res.body.data.statements[0].rows).toEqual([{ n: '0' }]);
                break;
              }
            }
          }
          for (const w of [0, 1] as const) {
            const { rows } = await live.db.query<Row>(
              'SELECT account_id AS account, amount::text AS amount, note FROM public.ledger_entries WHERE workspace_id = $1',
              [workspaces[w]],
            );
            expect(sorted(rows)).toEqual(sorted(model[w]!));
          }
          const { rows: stray } = await live.db.query(
            'SELECT 1 FROM public.ledger_entries WHERE workspace_id <> ALL($1::uuid[])',
            [workspaces],
          );
          expect(stray).toHaveLength(0);
        }),
        { numRuns: 30 },
      );
    });
  },
);
