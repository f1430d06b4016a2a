// Issue 42: the export reads a workspace's ledger_entries and budget_lines in keyset pages (WHERE workspace_id = $1
// AND <key> > $2 ORDER BY <key> LIMIT 1000, portability/reader.ts). Migration 0050 gives each an index that starts
// with the workspace and goes on in key order, so a page is an index range of its own rows: these plans are read
// from the export's own statements (relationBatches, with a Queryable that asks EXPLAIN ANALYZE for each before
// running it) on a database where the workspace holds a tenth of each table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relationColumns } from '../../../features/portability/columns.js';
import { changeBatches, relationBatches } from '../../../features/portability/reader.js';
import type { Database, Queryable } from '../database.js';
import { ENGINES, type EngineFixture } from './engines.js';
import { type Seed, seedTwoWorkspaces } from './seed.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

interface Page {
  sql: string;
  plan: PlanNode;
  rows: number;
}

describe.each(ENGINES)("a workspace's rows in key order on %s", (_engine, makeFixture) => {
  let fixture: EngineFixture;
  let db: Database;
  let seed: Seed;

  /**
   * The owner's queries, each one's plan asked for (EXPLAIN ANALYZE, the same parameters) before it runs; the pages
   * are the statements `kept` matches.
   */
  const explaining = (pages: Page[], kept = /ORDER BY t\./): Queryable => ({
    async query<R>(sql: string, params?: unknown[]) {
      const { rows } = await db.query<Record<string, unknown>>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      const value = Object.values(rows[0]!)[0];
      const parsed = (typeof value === 'string' ? JSON.parse(value) : value) as { Plan: PlanNode }[];
      const result = await db.query<R>(sql, params);
      if (kept.test(sql)) pages.push({ sql, plan: parsed[0]!.Plan, rows: result.rows.length });
      return result;
    },
  });

  /** Every page the export reads of a relation of workspace A, with its plan. */
  const pagesOf = async (relation: 'ledger_entries' | 'budget_lines'): Promise<Page[]> => {
    const pages: Page[] = [];
    const q = explaining(pages);
    const source = { db: q, workspaceId: seed.workspaceA };
    for await (const _ of relationBatches(source, relation, await relationColumns(db, relation), 'json')) {
    }
    return pages;
  };

  beforeAll(async () => {
    fixture = await makeFixture();
    db = await fixture.open();
    seed = await seedTwoWorkspaces(db);
    // Workspace A: 1,500 entries and 1,200 budget lines (with the seed's, 1,503 and 1,201: two pages each); B about
    // seven to nine times as many, written between A's rows as a live service writes them.
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category, external_id)
         SELECT CASE WHEN g % 10 = 0 THEN $1::uuid ELSE $2::uuid END,
                TIMESTAMPTZ '2025-01-01 00:00:00+00' + g * INTERVAL '1 hour', 'checking', -1, 'USD', 'spend', 'food',
                'bulk-' || g
         FROM generate_series(1, 15000) AS g`,
        [seed.workspaceA, seed.workspaceB],
      );
      await tx.query(
        `INSERT INTO budget_lines (workspace_id, budget_month, direction, category, currency, planned_value)
         SELECT CASE WHEN c <= 20 THEN $1::uuid ELSE $2::uuid END, (DATE '2016-01-01' + m * INTERVAL '1 month')::date,
                'spend', 'cat-' || c, 'USD', 100
         FROM generate_series(0, 59) AS m, generate_series(1, 170) AS c`,
        [seed.workspaceA, seed.workspaceB],
      );
    });
    // The history: 40 changes of A's owner among 3,000 users of the service, and 400 changes of B.
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO expense_internal.users (email) SELECT 'bulk-' || g || '@example.com' FROM generate_series(1, 3000) AS g`,
      );
      await tx.query(
        `INSERT INTO expense_internal.changes (change_id, workspace_id, user_id, endpoint, sql_text)
         SELECT gen_random_uuid(), CASE WHEN g % 11 = 0 THEN $1::uuid ELSE $2::uuid END,
                (SELECT created_by FROM expense_internal.workspaces WHERE workspace_id = $1), '/sql/execute',
                'UPDATE ledger_entries SET note = ''x'' WHERE false'
         FROM generate_series(1, 440) AS g`,
        [seed.workspaceA, seed.workspaceB],
      );
    });
    await db.query(
      'ANALYZE ledger_entries; ANALYZE budget_lines; ANALYZE expense_internal.users; ANALYZE expense_internal.changes',
    );
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await fixture?.dispose();
  });

  for (const [relation, index, key, expected] of [
    ['ledger_entries', 'ledger_entries_workspace_entry_idx', 'entry_id', 1503],
    ['budget_lines', 'budget_lines_workspace_line_idx', 'line_id', 1201],
  ] as const) {
    it(`the export's pages of ${relation} are ranges of (workspace_id, ${key}), each reading only its own rows`, async () => {
      const pages = await pagesOf(relation);
      expect(pages.reduce((n, p) => n + p.rows, 0)).toBe(expected);
      expect(pages.length).toBe(Math.ceil(expected / 1000));
      pages.forEach((page, i) => {
        const scans = nodes(page.plan).filter((n) => n['Relation Name'] === relation);
        expect(scans).toHaveLength(1);
        const scan = scans[0]!;
        // An index scan, or a bitmap heap scan over its bitmap index scan: the index and its condition.
        const probe = scan['Index Name']
          ? scan
          : nodes(scan).find((n) => n['Node Type'] === 'Bitmap Index Scan');
        const plan = JSON.stringify(page.plan);
        // Only the workspace's own rows: its id is an index condition, no row is dropped by a filter or a recheck.
        expect(probe?.['Index Cond'], plan).toMatch(/workspace_id = /);
        expect(scan['Rows Removed by Filter'] ?? 0, plan).toBe(0);
        expect(scan['Rows Removed by Index Recheck'] ?? 0, plan).toBe(0);
        // A later page starts from the last key of the page before, in the same index: only (workspace_id, key)
        // holds both (the primary key alone would drop the other workspaces' rows, (workspace_id, ts) would read
        // the whole workspace again for each page).
        if (i > 0) {
          expect(probe?.['Index Name'], plan).toBe(index);
          expect(probe?.['Index Cond'], plan).toMatch(new RegExp(`${key} > `));
        }
      });
    });
  }

  it("the export's pages of the history read the users who made the changes, not every user", async () => {
    const pages: Page[] = [];
    const source = {
      db: explaining(pages, /FROM expense_internal\.changes c\b/),
      workspaceId: seed.workspaceA,
    };
    let changes = 0;
    for await (const batch of changeBatches(source, 'json')) changes += batch.length;
    expect(changes).toBeGreaterThanOrEqual(40);
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) {
      const plan = JSON.stringify(page.plan);
      const users = nodes(page.plan).filter((n) => n['Relation Name'] === 'users');
      expect(users.length, plan).toBeGreaterThan(0);
      for (const scan of users) {
        // A probe of users_pkey per change (at most one row each), never a scan of the table into a hash.
        expect(scan['Node Type'], plan).toMatch(/^Index (Only )?Scan$/);
        expect(scan['Index Name'], plan).toBe('users_pkey');
        expect((scan['Actual Rows'] ?? 0) * (scan['Actual Loops'] ?? 1), plan).toBeLessThanOrEqual(changes);
      }
    }
  });
});
