// Issue 40, item 2: "a round trip gives identical reports, balances and history". A restore replays the export's
// change history into the target's, oldest first and older than the restore's own change: same times, SQL,
// statements, actors and row images (numbers to the last digit and scale), under new ids, so a copy next to the
// original collides with nothing; a restored change reverts like the original, and the restore's change still
// empties what the restore added. Small (60 entries): the 10,000-entry round trip is round-trip.test.ts.

import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { seedWorkspace } from './seed.js';

interface Change {
  changeId: string;
  shortId: string;
  at: string;
  endpoint: string;
  sql: string;
  statements: unknown[];
  by: { userId: string | null; email: string | null };
  reverts?: string;
  revertedBy?: string;
}
interface Row {
  table: string;
  key: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

describe.each(ENGINES)('restore replays the history on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let source: string;
  let document: string;
  let original: Change[];
  let firstCopy: string;

  const as = (workspaceId: string) => ({ key: owner.apiKey, headers: { 'x-workspace-id': workspaceId } });
  const history = async (workspaceId: string): Promise<Change[]> => {
    const res = await call(live, API_ROUTES.changes, { query: { limit: 100 }, ...as(workspaceId) });
    expect(res.status, res.text).toBe(200);
    return res.body.data.changes;
  };
  const detail = async (workspaceId: string, changeId: string): Promise<Row[]> => {
    const res = await call(live, API_ROUTES.change, { params: { changeId }, ...as(workspaceId) });
    expect(res.status, res.text).toBe(200);
    return res.body.data.rows;
  };
  const sql = async (workspaceId: string, text: string) => {
    const res = await call(live, API_ROUTES.sqlExecute, { ...as(workspaceId), body: { sql: text } });
    expect(res.status, res.text).toBe(200);
  };
  const newWorkspace = async (name: string): Promise<string> =>
    (await call(live, API_ROUTES.createWorkspace, { key: owner.apiKey, body: { name } })).body.data.workspace
      .workspaceId;
  const restore = (workspaceId: string, body = document) =>
    call(live, API_ROUTES.restoreWorkspace, {
      params: { workspaceId },
      key: owner.apiKey,
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
  const count = async (workspaceId: string) =>
    (
      await live.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
        [workspaceId],
      )
    ).rows[0]!.n;

  beforeAll(async () => {
    live = await startLive(engine);
    owner = await createUser(live.db);
    source = await addWorkspace(live.db, owner.userId, 'Household');
    await seedWorkspace(live, owner, source, 60);
    // A delete and its revert: the restored revert must name the restored delete.
    await sql(source, "DELETE FROM ledger_entries WHERE account_id = 'cash'");
    const [deleted] = await history(source);
    const reverted = await call(live, API_ROUTES.revertChange, {
      params: { changeId: deleted!.changeId },
      ...as(source),
      body: {},
    });
    expect(reverted.status, reverted.text).toBe(200);
    // A scale a double would lose (12.50) and more digits than a double holds.
    await sql(source, "UPDATE ledger_entries SET amount = -12.50 WHERE account_id = 'cash'");
    await sql(
      source,
      "UPDATE budget_lines SET planned_value = 123456789012.123456789 WHERE category = 'food' AND budget_month = DATE '2025-01-01'",
    );
    original = await history(source);
    expect(original).toHaveLength(8);
    const res = await call(live, API_ROUTES.exportWorkspace, {
      params: { workspaceId: source },
      key: owner.apiKey,
    });
    expect(res.status).toBe(200);
    document = res.text;
  }, 120_000);
  afterAll(async () => live?.close());

  /** A row image of the source as the target holds it: the target's workspace, the rows' ids mapped. */
  const asTarget = (rows: Row[], workspaceId: string, ids: Map<string, string>) =>
    rows.map((r) => {
      const image = (i: Record<string, unknown> | null) => {
        if (i === null) return null;
        const out: Record<string, unknown> = { ...i, workspace_id: workspaceId };
        for (const k of ['entry_id', 'line_id']) if (k in out) out[k] = ids.get(out[k] as string) ?? out[k];
        return out;
      };
      return { table: r.table, before: image(r.before), after: image(r.after) };
    });

  it('lists the original changes, oldest first, before the restore, with their rows', async () => {
    const target = await newWorkspace('Copy');
    const res = await restore(target);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.restored).toMatchObject({ changes: 8 });
    firstCopy = target;
    const copied = await history(target);
    expect(copied).toHaveLength(9);
    expect(copied[0]).toMatchObject({ changeId: res.body.data.changeId, endpoint: 'restore' });
    // Issue 41: the restore's short id, as the history lists it beside the replayed changes.
    expect(res.body.data.shortId).toMatch(/^[0-9a-f]{8,}/);
    expect(copied[0]!.shortId).toBe(res.body.data.shortId);
    expect(res.body.instructions.join(' ')).toContain(`short id ${res.body.data.shortId}`);
    const restored = copied.slice(1);
    const strip = (c: Change) => ({
      at: c.at,
      endpoint: c.endpoint,
      sql: c.sql,
      statements: c.statements,
      email: c.by.email,
      userId: c.by.userId,
    });
    expect(restored.map(strip)).toEqual(original.map(strip));
    expect(restored.every((c) => c.by.email === owner.email)).toBe(true);
    // New ids, version 7 of the original times (so they sort and shorten as any).
    const sourceIds = new Set(original.map((c) => c.changeId));
    for (const [i, c] of restored.entries()) {
      expect(sourceIds.has(c.changeId)).toBe(false);
      expect(c.changeId[14]).toBe('7');
      expect(Number.parseInt(c.changeId.slice(0, 13).replace('-', ''), 16)).toBe(Date.parse(original[i]!.at));
      expect(c.shortId).toBe(c.changeId.slice(-8));
    }
    // The restored revert names the restored delete, and the delete is marked reverted by it.
    const revertAt = original.findIndex((c) => c.endpoint === 'revert');
    expect(restored[revertAt]!.reverts).toBe(restored[revertAt + 1]!.changeId);
    expect(restored[revertAt + 1]!.revertedBy).toBe(restored[revertAt]!.changeId);

    // Row images: the source's, as the target's rows (the source is still here, so every row got a new id).
    const ids = new Map<string, string>();
    const entries = await live.db.query<{ a: string; b: string }>(
      `SELECT s.entry_id::text AS a, t.entry_id::text AS b FROM public.ledger_entries s
       JOIN public.ledger_entries t ON t.external_id = s.external_id AND t.workspace_id = $2
       WHERE s.workspace_id = $1`,
      [source, target],
    );
    for (const r of entries.rows) ids.set(r.a, r.b);
    const lines = await live.db.query<{ a: string; b: string }>(
      `SELECT s.line_id::text AS a, t.line_id::text AS b FROM public.budget_lines s
       JOIN public.budget_lines t USING (budget_month, direction, category)
       WHERE s.workspace_id = $1 AND t.workspace_id = $2`,
      [source, target],
    );
    for (const r of lines.rows) ids.set(r.a, r.b);
    for (const [i, c] of restored.entries()) {
      const rows = await detail(target, c.changeId);
      const expected = asTarget(await detail(source, original[i]!.changeId), target, ids);
      // Entries without an external id (the cash entry) are matched by their images' other columns.
      const unmapped = (r: {
        after: Record<string, unknown> | null;
        before: Record<string, unknown> | null;
      }) => {
        const { entry_id: _a, ...after } = r.after ?? {};
        const { entry_id: _b, ...before } = r.before ?? {};
        return { after, before };
      };
      expect(rows.map(unmapped)).toEqual(expected.map(unmapped));
      expect(rows.map((r) => r.table)).toEqual(expected.map((r) => r.table));
    }
    const [line] = await detail(target, restored[0]!.changeId);
    expect(line!.after!.planned_value).toBe('123456789012.123456789');
    const [cash] = await detail(target, restored[1]!.changeId);
    expect([cash!.before!.amount, cash!.after!.amount]).toEqual(['-12.345678', '-12.50']);

    // A restored change reverts like the original: the rows as they were before it.
    const revert = await call(live, API_ROUTES.revertChange, {
      params: { changeId: restored[1]!.changeId },
      ...as(target),
      body: {},
    });
    expect(revert.status, revert.text).toBe(200);
    const { rows } = await live.db.query<{ amount: string }>(
      "SELECT amount::text FROM public.ledger_entries WHERE workspace_id = $1 AND account_id = 'cash'",
      [target],
    );
    expect(rows).toEqual([{ amount: '-12.345678' }]);
    // A change whose rows were changed since answers change_conflict, as for any.
    await sql(target, "UPDATE ledger_entries SET note = 'later' WHERE account_id = 'cash'");
    const stale = await call(live, API_ROUTES.revertChange, {
      params: { changeId: restored[revertAt]!.changeId },
      ...as(target),
      body: {},
    });
    expect([stale.status, stale.body.error?.code]).toEqual([409, 'change_conflict']);
  });

  it('restores a second copy on the same server with no id in common, and its restore reverts', async () => {
    const first = await history(firstCopy);
    const target = await newWorkspace('Second copy');
    // Fewer rows than a revert may restore (100): the history is whole, the rows a part.
    const small = JSON.parse(document);
    small.ledger_entries = small.ledger_entries
      .filter((e: { kind: string }) => e.kind !== 'transfer')
      .slice(0, 20);
    small.budget_lines = small.budget_lines.slice(0, 10);
    // An actor this server has under another address: the change is kept without one (no account is probed).
    small.changes[0].email = 'someone.else@example.com';
    const res = await restore(target, JSON.stringify(small));
    expect(res.status, res.text).toBe(200);
    const second = await history(target);
    expect(second).toHaveLength(9);
    expect(second[8]!.by).toMatchObject({ userId: null, email: null, connectionId: null });
    expect(second[7]!.by).toMatchObject({ userId: owner.userId, email: owner.email });
    const seen = new Set([...original, ...first].map((c) => c.changeId));
    expect(second.filter((c) => seen.has(c.changeId))).toEqual([]);
    const { rows } = await live.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM expense_internal.changes WHERE workspace_id = $1',
      [target],
    );
    expect(rows[0]!.n).toBe(9);
    expect(await count(target)).toBeGreaterThan(0);

    // Its short id, as the history lists it, names the restore for a revert.
    expect(second[0]).toMatchObject({ changeId: res.body.data.changeId, shortId: res.body.data.shortId });
    const undo = await call(live, API_ROUTES.revertChange, {
      params: { changeId: res.body.data.shortId },
      ...as(target),
      body: {},
    });
    expect(undo.status, undo.text).toBe(200);
    expect(undo.body.data.reverted).toBe(res.body.data.changeId);
    expect(await count(target)).toBe(0);
    expect(await count(source)).toBeGreaterThan(0);
  });

  it('leaves out changes past 90 days, applies the history bound, and writes nothing when refused', async () => {
    const changesOf = async (workspaceId: string) =>
      (
        await live.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM expense_internal.changes WHERE workspace_id = $1',
          [workspaceId],
        )
      ).rows[0]!.n;
    const small = JSON.parse(document);
    small.ledger_entries = small.ledger_entries.filter((e: { kind: string }) => e.kind !== 'transfer');
    // A refused row: nothing is written, the history neither.
    const bad = structuredClone(small);
    bad.ledger_entries[3].kind = 'gift';
    const refusedIn = await newWorkspace('Refused');
    const refused = await restore(refusedIn, JSON.stringify(bad));
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_request']);
    expect([await changesOf(refusedIn), await count(refusedIn)]).toEqual([0, 0]);

    small.changes[0].at = new Date(Date.now() - 91 * 86_400_000).toISOString();
    const old = await newWorkspace('Old');
    const res = await restore(old, JSON.stringify(small));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.restored.changes).toBe(7);
    expect(await changesOf(old)).toBe(8);

    await live.db.query('UPDATE expense_internal.change_history_limits SET max_changes = 4');
    try {
      const bounded = await newWorkspace('Bounded');
      const res2 = await restore(bounded, JSON.stringify(small));
      expect(res2.status, res2.text).toBe(200);
      const kept = await history(bounded);
      expect(kept.map((c) => c.endpoint)[0]).toBe('restore');
      expect(kept).toHaveLength(4);
      expect(kept.slice(1).map((c) => c.sql)).toEqual(original.slice(0, 3).map((c) => c.sql));
      const usage = await live.db.query<{ changes: number; dropped: string }>(
        'SELECT changes, dropped_changes::text AS dropped FROM expense_internal.change_usage WHERE workspace_id = $1',
        [bounded],
      );
      expect(usage.rows[0]).toEqual({ changes: 4, dropped: '4' });
    } finally {
      await live.db.query('UPDATE expense_internal.change_history_limits SET max_changes = 100000');
    }
  });
});
