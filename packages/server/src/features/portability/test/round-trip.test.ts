// Issue 40, items 1 and 2, and its first "done when": GET /v1/workspaces/{id}/export writes every relation of a
// workspace of 10,000 entries (with budgets, settings, account metadata) and its change history as one versioned
// JSON document (or a zip of CSVs with a manifest), and POST .../restore loads it into an empty workspace as one
// change, after which every report kind answers exactly as on the original, over the whole range and over each of
// its 18 months; on both engines (the fast suite, EXPENSE_TEST_ENGINES=pglite, runs the embedded one only). About
// 45 s an engine on a quiet machine (PGlite: seeding 12 s, the restore and its 4 x 19 x 2 reports, then a replace, 27 s), so
// the full 10,000 run in both suites; the timeouts leave room for a loaded CI.

import { call, routePath } from '@expense/test-kit';
import { API_ROUTES, type QueryValues } from '@expense/wire';
import { REPORT_KINDS } from '@expense/wire/reports';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { RANGE, reports, seedWorkspace } from './seed.js';

const ENTRIES = 10_000;

describe.each(ENGINES)('export and restore on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let source: string;
  let document: string;

  beforeAll(async () => {
    live = await startLive(engine);
    owner = await createUser(live.db);
    source = await addWorkspace(live.db, owner.userId, 'Household =1+1');
    await seedWorkspace(live, owner, source, ENTRIES);
  }, 180_000);
  afterAll(async () => live?.close());

  const restore = (workspaceId: string, body: string, query: QueryValues = {}) =>
    call(live, API_ROUTES.restoreWorkspace, {
      params: { workspaceId },
      query,
      key: owner.apiKey,
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });

  it('exports one versioned document with every relation and the history', async () => {
    const res = await call(live, API_ROUTES.exportWorkspace, {
      params: { workspaceId: source },
      key: owner.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('content-disposition')).toMatch(
      /attachment; filename="expense-household-1-1-\d{4}-\d\d-\d\d\.json"/,
    );
    document = res.text;
    const doc = res.body;
    expect(doc).toMatchObject({ format: 'expense-export', version: 1, workspace: { workspaceId: source } });
    expect(doc.ledger_entries).toHaveLength(ENTRIES + 121);
    expect(doc.budget_lines).toHaveLength(54);
    expect(doc.account_metadata).toHaveLength(2);
    expect(doc.workspace_settings).toEqual([
      expect.objectContaining({ reporting_currency: 'EUR', timezone: 'Europe/Berlin', first_day_of_week: 7 }),
    ]);
    const odd = doc.ledger_entries.find((e: { amount: string }) => e.amount === '-12.345678');
    expect(odd).toMatchObject({ ts: '2026-03-01T23:30:00.000000Z', account_id: 'cash', kind: 'spend' });
    expect(doc.ledger_entries[0]).not.toHaveProperty('workspace_id');
    expect(doc.changes.length).toBe(4);
    expect(doc.changes[0]).toMatchObject({ endpoint: 'execute', user_id: owner.userId, email: owner.email });
    expect(doc.change_rows.length).toBeGreaterThanOrEqual(4);
    expect(doc.end).toEqual({
      counts: {
        workspace_settings: 1,
        account_metadata: 2,
        budget_lines: 54,
        ledger_entries: ENTRIES + 121,
        changes: 4,
        change_rows: doc.change_rows.length,
      },
      changedDuringExport: false,
    });
  });

  it('restores into a new workspace as one change, and every report answers the same', {
    timeout: 180_000,
  }, async () => {
    const target = (
      await call(live, API_ROUTES.createWorkspace, { key: owner.apiKey, body: { name: 'Copy' } })
    ).body.data.workspace.workspaceId as string;
    const res = await restore(target, document);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      workspaceId: target,
      replaced: false,
      restored: {
        changes: 4,
        workspace_settings: 1,
        account_metadata: 2,
        budget_lines: 54,
        ledger_entries: ENTRIES + 121,
      },
      // The original still holds its ids on this server: every row gets a new one.
      newIds: ENTRIES + 121 + 54,
    });
    const changes = await call(live, API_ROUTES.changes, {
      key: owner.apiKey,
      headers: { 'x-workspace-id': target },
    });
    expect(changes.status, changes.text).toBe(200);
    // The restore is the newest change; the source's four (history-restore.test.ts compares them) come before it.
    expect(changes.body.data.changes.map((c: { changeId: string }) => c.changeId)[0]).toBe(
      res.body.data.changeId,
    );
    expect(changes.body.data.changes.map((c: { endpoint: string }) => c.endpoint)).toEqual([
      'restore',
      'execute',
      'execute',
      'execute',
      'execute',
    ]);
    const original = await reports(live, owner.apiKey, source);
    // Every kind has rows in every month (identical empty answers would prove nothing).
    const empty = Object.entries(original).filter(([, r]) => (r as { rows: unknown[] }).rows.length === 0);
    expect(empty.map(([name]) => name)).toEqual([]);
    expect(Object.keys(original)).toHaveLength(REPORT_KINDS.length * 19);
    expect(await reports(live, owner.apiKey, target)).toEqual(original);

    // Not empty now: refused unless replace, which gives the same answers again.
    const again = await restore(target, document);
    expect([again.status, again.body.error.code]).toEqual([409, 'workspace_not_empty']);
    const replaced = await restore(target, document, { replace: true });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.data.replaced).toBe(true);
    // (Over the whole range only: the months were compared above.)
    const whole = Object.fromEntries(
      Object.entries(original).filter(([name]) => name.endsWith(` ${RANGE.from}..${RANGE.to}`)),
    );
    expect(await reports(live, owner.apiKey, target, [RANGE])).toEqual(whole);
  });

  it('refuses what is not an export, and a member who is not an owner', async () => {
    const target = await addWorkspace(live.db, owner.userId, 'Empty');
    for (const body of [
      '{"format":"other"}',
      '[]',
      JSON.stringify({ ...JSON.parse(document), version: 99 }),
    ]) {
      const res = await restore(target, body);
      expect([res.status, res.body.error.code], body.slice(0, 40)).toEqual([400, 'invalid_request']);
    }
    const bad = JSON.parse(document);
    bad.ledger_entries[5].kind = 'gift';
    const refused = await restore(target, JSON.stringify(bad));
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_request']);
    expect(refused.body.error.details.relation).toBe('ledger_entries');
    const { rows } = await live.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
      [target],
    );
    expect(rows[0]!.n).toBe(0);
    const stranger = await createUser(live.db);
    const byStranger = await call(live, API_ROUTES.exportWorkspace, {
      params: { workspaceId: source },
      key: stranger.apiKey,
    });
    expect([byStranger.status, byStranger.body.error.code]).toEqual([404, 'workspace_not_found']);
  });

  it('exports a zip of CSVs with a manifest, cells safe for a spreadsheet', async () => {
    const res = await fetch(
      `${live.origin}${routePath(API_ROUTES.exportWorkspace, { workspaceId: source }, { format: 'csv' })}`,
      {
        headers: { authorization: `ApiKey ${owner.apiKey}` },
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual([
      'account_metadata.csv',
      'budget_lines.csv',
      'change_rows.csv',
      'changes.csv',
      'ledger_entries.csv',
      'manifest.json',
      'workspace_settings.csv',
    ]);
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    expect(manifest).toMatchObject({ format: 'expense-export', version: 1 });
    expect(manifest.files.find((f: { name: string }) => f.name === 'ledger_entries.csv').rows).toBe(
      ENTRIES + 121,
    );
    const ledger = strFromU8(files['ledger_entries.csv']!);
    expect(ledger.split('\r\n')[0]).toMatch(/^entry_id,event_id,ts,account_id,amount,currency,kind,/);
    expect(ledger).toContain(`"'=HYPERLINK(""http://x.example"")"`);
    expect(ledger).toContain(',-12.345678,');
    expect(ledger).toContain('"two\nlines, ""quoted"""');
    expect(strFromU8(files['account_metadata.csv']!)).toContain("'+1 call");
  });
});
