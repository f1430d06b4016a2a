// `pnpm fuzz` (part 2): planner bombs against a real PostgreSQL. Draws N statements from fuzz/planner-bombs.ts (the
// issue-35 shapes first), asks check() about each, and plans every accepted one with EXPLAIN on a fresh database of
// the local server, measuring the time and the backend's peak memory (fuzz/plan-cost.ts). Fails when an accepted
// statement takes 1 s or more, or 256 MB or more, to plan. Refused statements are not planned (they may take
// minutes and gigabytes: that is why they are refused).
//   node --conditions=@expense/source --import tsx fuzz/planner.fuzz.ts [count] [--seed n]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withFreshPostgres } from '@expense/test-kit';
import pg from 'pg';
import { createGuard } from '../src/index.js';
import { expenseSchema } from '../test/check/expense-schema.js';
import { backendPid, planCost } from './plan-cost.js';
import { bombs, reportedBombs } from './planner-bombs.js';

const MAX_MS = 1000;
const MAX_BYTES = 256 * 1024 * 1024;

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = resolve(here, '..', '..', '..', 'bench-results');
const argAfter = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const count = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 600);
const seed = Number(argAfter('seed') ?? Date.now() % 2 ** 31);

const guard = await createGuard();
const inputs = [...reportedBombs(), ...bombs(seed, count)];
process.stderr.write(`fuzz planner: ${inputs.length} statements, seed ${seed}\n`);

const report = await withFreshPostgres(
  async (db) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(expenseSchema);
      const pid = await backendPid(client);
      const failures: unknown[] = [];
      let accepted = 0;
      let refused = 0;
      let maxMs = 0;
      let maxBytes = 0;
      for (const b of inputs) {
        const r = guard.check(b.sql, { mode: 'query' });
        if (!r.ok) {
          refused++;
          continue;
        }
        accepted++;
        const cost = await planCost(client, pid, b.sql);
        maxMs = Math.max(maxMs, cost.ms);
        maxBytes = Math.max(maxBytes, cost.peakGrowthBytes ?? 0);
        if (cost.ms >= MAX_MS || (cost.peakGrowthBytes ?? 0) >= MAX_BYTES)
          failures.push({ family: b.family, length: b.length, depth: b.depth, ...cost });
      }
      return {
        seed,
        statements: inputs.length,
        accepted,
        refused,
        maxPlanMs: Math.round(maxMs),
        maxPeakGrowthMB: Math.round(maxBytes / 2 ** 20),
        failures,
      };
    } finally {
      await client.end();
    }
  },
  { prefix: 'expense_fuzz' },
);

mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `fuzz-planner-${seed}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
process.stderr.write(`${JSON.stringify({ ...report, failures: report.failures.length })}\nreport: ${file}\n`);
process.exit(report.failures.length === 0 ? 0 : 1);
