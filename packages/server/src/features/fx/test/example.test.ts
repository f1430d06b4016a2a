// Runs the worked examples of docs/fx.md as the SQL role, the way user SQL runs, and compares the results
// with the tables printed in the doc.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFxText } from '../import.js';
import { csv, ENTRIES, example } from './doc-examples.js';
import { ENGINES, type TestDatabase } from './engines.js';

describe.each(ENGINES)('docs/fx.md worked example on %s', (_engine, open) => {
  let t: TestDatabase;
  const user = randomUUID();
  const workspace = randomUUID();
  beforeAll(async () => {
    t = await open();
    const imported = await importFxText(t.db, csv, { windowDays: 730, today: '2025-01-06' });
    expect(imported.ok).toBe(true);
    await t.db.transaction(async (tx) => {
      await tx.query('INSERT INTO expense_internal.users (user_id, email) VALUES ($1, $2)', [
        user,
        `${user}@example.test`,
      ]);
      await tx.query("INSERT INTO expense_internal.workspaces (workspace_id, name) VALUES ($1, 'FX')", [
        workspace,
      ]);
      await tx.query(
        "INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')",
        [workspace, user],
      );
      await tx.query("INSERT INTO workspace_settings (workspace_id, reporting_currency) VALUES ($1, 'GBP')", [
        workspace,
      ]);
      for (const [ts, amount, currency, kind, category] of ENTRIES) {
        await tx.query(
          `INSERT INTO ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category)
           VALUES ($1, $2, 'card', $3, $4, $5, $6)`,
          [workspace, ts, amount, currency, kind, category],
        );
      }
    });
  });
  afterAll(() => t?.dispose());

  it.each(['entries', 'totals'])('%s: the query returns the table printed in the doc', async (name) => {
    const { sql, header, rows } = example(name);
    const result = await t.db.userTransaction(
      { userId: user, workspaceId: workspace, readOnly: true },
      (session) => session.query(sql),
    );
    expect(result.fields.map((f) => f.name)).toEqual(header);
    expect(result.rows.map((r) => header.map((h) => (r[h] === null ? '' : String(r[h]))))).toEqual(rows);
  });
});
