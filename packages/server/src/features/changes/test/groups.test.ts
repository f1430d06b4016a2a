// Change groups (issue 24, migration 0042): the writes of one import, each its own change within the row cap,
// listed as one entry of the history with its label and row count; found by a prefix of its id; reverted as a
// sequence of per-change reverts that are themselves one entry. Real HTTP on both engines.
import { randomUUID } from 'node:crypto';
import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  insertEntries,
  type Json,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';

describe.each(ENGINES)('change groups on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    live.request('POST', path, { key: user.apiKey, body, headers });
  const get = (path: string) => live.request('GET', path, { key: user.apiKey });
  const grouped = (id: string, label: string) => ({
    'x-change-group': id,
    'x-change-label': encodeURIComponent(label),
  });
  const count = async (account: string) =>
    Number(
      (
        await live.db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries WHERE account_id = $1', [
          account,
        ])
      ).rows[0]!.n,
    );

  it('lists the batches of one group as one entry, found by a prefix of its id, and reverts it change by change', async () => {
    const group = randomUUID();
    const label = 'import Umsätze März.csv';
    for (const start of [1, 4, 7])
      expect(
        (
          await post(
            routePath(API_ROUTES.sqlExecute),
            { sql: insertEntries(3, 'grp', start) },
            grouped(group, label),
          )
        ).status,
      ).toBe(200);
    expect((await post(routePath(API_ROUTES.sqlExecute), { sql: insertEntries(2, 'solo') })).status).toBe(
      200,
    );
    const list = (await get(routePath(API_ROUTES.changes, {}, { limit: 10 }))).body.data.changes as Json[];
    expect(list).toHaveLength(2);
    const [solo, entry] = list;
    expect(solo.group).toBeUndefined();
    expect(entry.group).toEqual({ groupId: group, label, changes: 3, rowCount: 9, reverted: 0 });

    // A short id resolves to the entry (never to the group's other changes, which share the time prefix).
    const prefix = (entry.changeId as string).slice(0, 13);
    const found = (await get(routePath(API_ROUTES.changes, {}, { idPrefix: prefix }))).body.data
      .changes as Json[];
    expect(found.map((c) => c.changeId)).toContain(entry.changeId);
    expect(found.every((c) => (c.changeId as string).startsWith(prefix))).toBe(true);
    expect((await get(routePath(API_ROUTES.changes, {}, { idPrefix: 'zz' }))).status).toBe(400);
    expect((await get(routePath(API_ROUTES.changes, {}, { idPrefix: '---' }))).body.data.changes).toEqual([]);

    const one = (await get(routePath(API_ROUTES.change, { changeId: entry.changeId }))).body.data;
    expect(one.members.map((m: Json) => m.rowCount)).toEqual([3, 3, 3]);
    expect(one.members.at(-1).changeId).toBe(entry.changeId);

    const undo = randomUUID();
    for (const member of [...one.members].reverse()) {
      const r = await post(
        routePath(API_ROUTES.revertChange, { changeId: member.changeId }),
        {},
        grouped(undo, `revert ${label}`),
      );
      expect(r.status).toBe(200);
    }
    expect(await count('grp')).toBe(0);
    expect(await count('solo')).toBe(2);
    const after = (await get(routePath(API_ROUTES.changes, {}, { limit: 10 }))).body.data.changes as Json[];
    expect(after).toHaveLength(3);
    expect(after[0].group).toMatchObject({
      groupId: undo,
      label: `revert ${label}`,
      changes: 3,
      rowCount: 9,
    });
    expect(after[0].endpoint).toBe('revert');
    expect(after[2].group).toMatchObject({ groupId: group, reverted: 3 });
  });

  it('refuses a malformed group or label, changing nothing', async () => {
    const before = await count('bad');
    const badId = await post(
      routePath(API_ROUTES.sqlExecute),
      { sql: insertEntries(1, 'bad') },
      grouped('nope', 'x'),
    );
    expect(badId.status).toBe(400);
    expect(badId.body.error.code).toBe('invalid_request');
    const long = await post(
      routePath(API_ROUTES.sqlExecute),
      { sql: insertEntries(1, 'bad') },
      grouped(randomUUID(), 'x'.repeat(201)),
    );
    expect(long.status).toBe(400);
    const labelOnly = await post(
      routePath(API_ROUTES.sqlExecute),
      { sql: insertEntries(1, 'bad') },
      { 'x-change-label': 'x' },
    );
    expect(labelOnly.status).toBe(400);
    expect(await count('bad')).toBe(before);
  });
});
