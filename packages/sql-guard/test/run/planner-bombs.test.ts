import { freshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendPid, planCost } from '../../fuzz/plan-cost.js';
import { bombs, reportedBombs } from '../../fuzz/planner-bombs.js';
import { createGuard } from '../../src/index.js';
import type { Guard } from '../../src/types.js';
import { expenseSchema } from '../check/expense-schema.js';

/**
 * The planner-bomb fuzzer's seeded sample in CI (fuzz/planner.fuzz.ts runs thousands): every statement `check`
 * accepts plans on PostgreSQL 15 with its backend's peak memory growing by less than 256 MB. The time is reported
 * by the fuzzer, not asserted here (timed assertions are not allowed in tests).
 */
const MAX_BYTES = 256 * 1024 * 1024;

describe('planner bombs on PostgreSQL', () => {
  let client: pg.Client;
  let drop: () => Promise<void>;
  let pid: number;
  let guard: Guard;
  beforeAll(async () => {
    const db = await freshPostgres({ prefix: 'expense_bombs' });
    drop = db.drop;
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(expenseSchema);
    pid = await backendPid(client);
    guard = await createGuard();
  }, 60_000);
  afterAll(async () => {
    await client?.end();
    await drop?.();
  });

  async function plannedWithinMemory(sample: ReturnType<typeof bombs>) {
    const over: string[] = [];
    let planned = 0;
    for (const b of sample) {
      const r = guard.check(b.sql, { mode: 'query' });
      if (!r.ok) {
        // Refused by the expansion bounds, or by the nesting bound for chains past 256 levels.
        expect(
          ['statement_too_complex', 'construct_not_allowed'],
          `${b.family} ${b.length}x${b.depth}`,
        ).toContain(r.error.code);
        continue;
      }
      const cost = await planCost(client, pid, b.sql);
      // Measurable wherever the peak can be reset (root, as in CI).
      if (process.env.CI) expect(cost.peakGrowthBytes, 'the backend peak memory is readable').toBeDefined();
      planned++;
      if ((cost.peakGrowthBytes ?? 0) >= MAX_BYTES)
        over.push(`${b.family} ${b.length}x${b.depth}: ${cost.peakGrowthBytes} bytes`);
    }
    return { over, planned };
  }

  it('refuses the reported shapes that cost seconds and gigabytes, and plans the rest in bounded memory', async () => {
    const { over, planned } = await plannedWithinMemory(reportedBombs());
    expect(over).toEqual([]);
    // 1 and 2 levels of the 90 kB doubling are accepted and planned.
    expect(planned).toBe(2);
  }, 120_000);

  it('plans every accepted statement of a seeded sample of every family in bounded memory', async () => {
    const sample = bombs(20261127, 120);
    const { over, planned } = await plannedWithinMemory(sample);
    expect(over).toEqual([]);
    // The sample straddles the bound: both sides are exercised.
    expect(planned).toBeGreaterThan(20);
    expect(planned).toBeLessThan(sample.length - 20);
  }, 300_000);
});
