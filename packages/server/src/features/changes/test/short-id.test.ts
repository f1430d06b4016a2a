// Issue 41: one short id for changes. The history gives each change a shortId (the last 8 hex digits of its id,
// longer on a clash within the workspace), and the routes that take a change take it, or a unique prefix;
// several matches are 409 ambiguous_change_id naming them.
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  insertEntries,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';

describe.each(ENGINES)('short change ids on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const write = async (account: string): Promise<string> => {
    const res = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      body: { sql: insertEntries(1, account) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.changeId;
  };
  const get = (id: string) => call(live, API_ROUTES.change, { params: { changeId: id }, key: user.apiKey });
  const listed = async () =>
    (await call(live, API_ROUTES.changes, { query: { limit: 100 }, key: user.apiKey })).body.data.changes as {
      changeId: string;
      shortId: string;
    }[];
  const hex = (id: string) => id.replace(/-/g, '');

  it('lists the last 8 hex digits as shortId, and finds and reverts a change by it or by a prefix', async () => {
    const id = await write('short-a');
    const entry = (await listed()).find((c) => c.changeId === id);
    expect(entry?.shortId).toBe(hex(id).slice(-8));

    const byShort = await get(id.slice(-8));
    expect(byShort.status, JSON.stringify(byShort.body)).toBe(200);
    expect(byShort.body.data.change).toMatchObject({ changeId: id, shortId: id.slice(-8) });
    expect((await get(id.slice(0, 23).toUpperCase())).body.data.change.changeId).toBe(id);

    const reverted = await call(live, API_ROUTES.revertChange, {
      params: { changeId: id.slice(-8) },
      key: user.apiKey,
    });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.data.reverted).toBe(id);
    const left = await call(live, API_ROUTES.sqlQuery, {
      key: user.apiKey,
      body: { sql: "SELECT count(*) AS n FROM ledger_entries WHERE account_id = 'short-a'" },
    });
    expect(left.body.data.statements[0].rows).toEqual([{ n: '0' }]);
  });

  it('lengthens the short id when another change ends in the same 8 digits, and refuses the ambiguous form', async () => {
    const id = await write('short-b');
    // A change of the same workspace whose id ends in the same 8 hex digits (its first 24 differ).
    const twin = `00000000-0000-7000-8000-${hex(id).slice(-12, -8) === 'ffff' ? '0000' : 'ffff'}${hex(id).slice(-8)}`;
    await live.db.query(
      `INSERT INTO expense_internal.changes (change_id, workspace_id, endpoint, sql_text) VALUES ($1, $2, 'execute', 'SELECT 1')`,
      [twin, workspaceId],
    );
    const entries = await listed();
    expect(entries.find((c) => c.changeId === id)?.shortId).toBe(hex(id).slice(-12));
    expect(entries.find((c) => c.changeId === twin)?.shortId).toBe(hex(twin).slice(-12));

    const ambiguous = await get(id.slice(-8));
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.code).toBe('ambiguous_change_id');
    expect(ambiguous.body.error.message).toContain(hex(id).slice(-12));
    expect(
      ambiguous.body.error.details.candidates.map((c: { changeId: string }) => c.changeId).sort(),
    ).toEqual([id, twin].sort());
    const refused = await call(live, API_ROUTES.revertChange, {
      params: { changeId: id.slice(-8) },
      key: user.apiKey,
      body: { dryRun: true },
    });
    expect(refused.body.error?.code).toBe('ambiguous_change_id');
    expect((await get(hex(id).slice(-12))).body.data.change.changeId).toBe(id);
  });

  it("answers a committed revert's own shortId as GET /changes lists it, the same again on a replay", async () => {
    const id = await write('short-e');
    const revert = (headers: Record<string, string> = {}) =>
      call(live, API_ROUTES.revertChange, { params: { changeId: id }, key: user.apiKey, headers });
    const dry = await call(live, API_ROUTES.revertChange, {
      params: { changeId: id },
      key: user.apiKey,
      body: { dryRun: true },
    });
    expect(dry.body.data.changeId).toBeNull();
    expect(dry.body.data).not.toHaveProperty('shortId');

    const key = { 'idempotency-key': `revert-short-${id}` };
    const done = await revert(key);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const { changeId, shortId } = done.body.data;
    expect(shortId).toMatch(/^[0-9a-f]{8,}/);
    expect((await listed()).find((c) => c.changeId === changeId)?.shortId).toBe(shortId);
    expect(done.body.instructions.join(' ')).toContain(`(short id ${shortId})`);
    const replay = await revert(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toMatchObject({ changeId, shortId });
    // The short id names the revert in turn: reverting it writes the row again.
    const again = await call(live, API_ROUTES.revertChange, {
      params: { changeId: shortId },
      key: user.apiKey,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.reverted).toBe(changeId);
  });

  it('refuses a prefix shared by several changes, and answers not_found for one no change has', async () => {
    const a = await write('short-c');
    const b = await write('short-d');
    let common = 0;
    while (hex(a)[common] === hex(b)[common]) common++;
    expect(common).toBeGreaterThanOrEqual(4);
    const shared = await get(hex(a).slice(0, common));
    expect(shared.status).toBe(409);
    expect(shared.body.error.code).toBe('ambiguous_change_id');
    // One digit past what a and b share may still be shared with an earlier change of the same minute (UUIDv7):
    // the shortest prefix of a that no other change of the workspace has names a alone.
    const others = (await listed()).map((c) => hex(c.changeId)).filter((other) => other !== hex(a));
    let unique = common + 1;
    while (others.some((other) => other.startsWith(hex(a).slice(0, unique)))) unique++;
    expect((await get(hex(a).slice(0, unique))).body.data.change.changeId).toBe(a);
    const none = await get('abcdef0123');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('not_found');
    expect((await get('not-an-id')).status).toBe(404);
  });
});
