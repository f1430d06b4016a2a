import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import type { Guard } from '../../src/types.js';
import { type Engine, type EngineName, engineNames, openEngine } from '../run/engines.js';
import { allCorpora, monthlyReport } from './corpus.js';
import { expenseSchema } from './expense-schema.js';

/**
 * Every accepted statement of the corpora runs on PostgreSQL 15, PGlite and the PGlite worker host: the
 * guard's name resolution (columns of subqueries, CTEs, VALUES lists, joins; output names of expressions)
 * accepts nothing that PostgreSQL would not read as a column. Each statement runs in a transaction that
 * is rolled back, so every one sees the same seeded rows.
 */
const all = allCorpora;

describe.each(engineNames)('accepted corpora run on %s', (name: EngineName) => {
  let engine: Engine;
  let guard: Guard;
  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(expenseSchema);
    guard = await createGuard();
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('runs every accepted statement', async () => {
    const failed: string[] = [];
    for (const [sql, mode] of all) {
      expect(guard.check(sql, { mode }).ok, sql).toBe(true);
      try {
        await engine.transaction((session) => guard.run(session, sql, { mode }), { rollback: true });
      } catch (error) {
        failed.push(`${mode} ${sql.slice(0, 120)}: ${(error as Error).message}`);
      }
    }
    expect(failed).toEqual([]);
  }, 300_000);

  it('the 12-month report returns twelve months, zero months included', async () => {
    const result = await engine.transaction(
      (session) => guard.run(session, monthlyReport, { mode: 'query' }),
      {
        rollback: true,
      },
    );
    const rows = result.statements[0]!.rows;
    expect(rows.map((r) => r.month)).toEqual(
      Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}-01`),
    );
    expect(rows.find((r) => r.month === '2026-01-01')?.total).toBe('0');
    expect(rows.find((r) => r.month === '2026-08-01')?.total).toBe('-935');
  }, 60_000);
});
