// The cost of the change history (issue 16): the same 100-row INSERT in a user transaction, committed, with the
// change recorded (begin_change in the context SELECT, the statement trigger writing 100 row images) and
// without (no change opened: the trigger fires and returns at once), alternating, on both engines.
// Goal: recorded ≤ 1.3x unrecorded (median). Prints a Markdown table; `pnpm bench` keeps it in
// bench-results/change-history.txt for docs/benchmarks.md.
//   node --conditions=@expense/source --import tsx bench/change-history.ts [--rounds 200]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard } from '@expense/sql-guard';
import { freshPostgres, median, quantile } from '@expense/test-kit';
import { runGuarded } from '../src/features/sql/pipeline.js';
import type { Database } from '../src/platform/storage/index.js';
import { arg, log } from './lib/results.js';
import { openForSeeding, seed } from './lib/seed.js';

const rounds = Number(arg('rounds', '200'));
const values = Array.from(
  { length: 100 },
  (_, i) => `(TIMESTAMPTZ '2026-01-01 00:00:00+00', 'bench', ${i + 1}.25, 'EUR', 'spend', 'bench')`,
).join(', ');
const INSERT = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ${values}`;

async function measure(engine: string, db: Database): Promise<string> {
  const guard = await createGuard({});
  try {
    const [key] = await seed(db, { users: 1 });
    const userId = key!.userId;
    const workspaceId = key!.workspaceIds[0]!;
    const once = async (recorded: boolean) => {
      const started = performance.now();
      await runGuarded(
        db,
        guard,
        {
          userId,
          workspaceId,
          readOnly: false,
          ...(recorded
            ? { change: { endpoint: 'execute', connectionId: key!.connectionId, sql: INSERT } }
            : {}),
        },
        { mode: 'execute', sql: INSERT, dryRun: false },
        async (result) => result,
      );
      return performance.now() - started;
    };
    const times = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < 20; i++) await once(i % 2 === 0); // warm-up
    for (let i = 0; i < rounds; i++) {
      times.with.push(await once(true));
      times.without.push(await once(false));
      if (i % 20 === 19) {
        await db.query('DELETE FROM public.ledger_entries WHERE workspace_id = $1', [workspaceId]);
        await db.query('DELETE FROM expense_internal.change_rows');
        await db.query('DELETE FROM expense_internal.changes');
        await db.query('DELETE FROM expense_internal.change_usage');
      }
    }
    const ratio = median(times.with) / median(times.without);
    log(
      `${engine}: ${median(times.without).toFixed(2)} ms without, ${median(times.with).toFixed(2)} ms with`,
    );
    return `| ${engine} | ${median(times.without).toFixed(2)} | ${quantile(times.without, 0.95).toFixed(2)} | ${median(times.with).toFixed(2)} | ${quantile(times.with, 0.95).toFixed(2)} | ${ratio.toFixed(2)}x |`;
  } finally {
    await guard.close();
  }
}

const lines = [
  `${rounds} commits of each kind, alternating; milliseconds per committed 100-row INSERT (BEGIN, context, the guard's batch, COMMIT).`,
  '',
  '| engine | without median | without p95 | recorded median | recorded p95 | ratio (median) |',
  '|---|---|---|---|---|---|',
];
const pg = await freshPostgres({ prefix: 'expense_history' });
try {
  const db = await openForSeeding({ databaseUrl: pg.url });
  try {
    lines.push(await measure('PostgreSQL', db));
  } finally {
    await db.close();
  }
} finally {
  await pg.drop();
}
const dir = await mkdtemp(join(tmpdir(), 'expense-history-'));
try {
  const db = await openForSeeding({ dataDir: dir });
  try {
    lines.push(await measure('PGlite', db));
  } finally {
    await db.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.stdout.write(`${lines.join('\n')}\n`);
