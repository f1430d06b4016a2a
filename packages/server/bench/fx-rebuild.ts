// Measures the FX worker on both engines: importing the shipped excerpt, and a synthetic 2-year history of
// 31 currencies (EUR + 30 quotes, ~961 ordered pairs), with its full and incremental daily rebuilds.
// Run in packages/server: node --conditions=@expense/source --import tsx bench/fx-rebuild.ts [--engines pglite,postgres]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgres } from '@expense/test-kit';
import { rebuildFxDaily } from '../src/features/fx/daily.js';
import { addDays } from '../src/features/fx/dates.js';
import { importFxText } from '../src/features/fx/import.js';
import { FX_SEED_CSV } from '../src/features/fx/seed.js';
import type { Database } from '../src/platform/storage/database.js';
import { openDatabase } from '../src/platform/storage/open.js';

const QUOTES =
  'USD JPY BGN CZK DKK GBP HUF PLN RON SEK CHF ISK NOK TRY AUD BRL CAD CNY HKD IDR ILS INR KRW MXN MYR NZD PHP SGD THB ZAR'.split(
    ' ',
  );
const LAST_DAY = '2025-01-03';

/** Two years of weekdays, newest first, in the ECB's CSV layout; a random walk per currency, a few N/A. */
function syntheticHistory(): string {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const levels = QUOTES.map((_, i) => 0.5 + i * 7.3);
  const rows: string[] = [];
  for (let day = addDays(LAST_DAY, -730); day <= LAST_DAY; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const cells = levels.map((level, i) => {
      levels[i] = level * (1 + (random() - 0.5) / 100);
      return random() < 0.01 ? 'N/A' : levels[i]!.toFixed(4);
    });
    rows.unshift(`${day},${cells.join(',')},`);
  }
  return `Date,${QUOTES.join(',')},\n${rows.join('\n')}\n`;
}

async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await fn();
  return [result, Math.round(performance.now() - started)];
}

interface Engine {
  name: string;
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

async function pglite(): Promise<Engine> {
  const dataDir = await mkdtemp(join(tmpdir(), 'expense-fx-bench-'));
  return {
    name: 'pglite',
    open: () => openDatabase({ dataDir }),
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function postgres(): Promise<Engine> {
  const database = await freshPostgres({ prefix: 'expense_fx_bench' });
  return {
    name: 'postgres',
    open: () => openDatabase({ databaseUrl: database.url, maxConnections: 2 }),
    dispose: database.drop,
  };
}

const engineArg = process.argv.indexOf('--engines');
const wanted = engineArg > 0 ? process.argv[engineArg + 1]!.split(',') : ['pglite', 'postgres'];
const history = syntheticHistory();
const lines: string[] = [];
const report = (engine: string, step: string, ms: number, detail: string) => {
  const line = `${engine.padEnd(9)} ${step.padEnd(44)} ${String(ms).padStart(7)} ms  ${detail}`;
  lines.push(line);
  console.log(line);
};

for (const make of [pglite, postgres]) {
  const engine = await make();
  if (!wanted.includes(engine.name)) {
    await engine.dispose();
    continue;
  }
  const db = await engine.open();
  try {
    const run = async (step: string, text: string, today: string) => {
      const [result, ms] = await time(() => importFxText(db, text, { windowDays: 730, today }));
      if (!result.ok) throw new Error(result.error.reason);
      const { inserted, unchanged, daily } = result.value;
      report(
        engine.name,
        step,
        ms,
        `raw +${inserted} (=${unchanged}); daily ${daily.mode} ${daily.daysRebuilt} days, +${daily.rowsInserted} -${daily.rowsDeleted} rows, total ${daily.rowsTotal}`,
      );
    };
    await run('excerpt: import + full rebuild (to 2025-01-06)', FX_SEED_CSV, '2025-01-06');
    await run('excerpt: import + rebuild to 2026-11-21 (seed)', FX_SEED_CSV, '2026-11-21');
    await db.query('DELETE FROM fx_rates_daily');
    await db.query('DELETE FROM fx_rates_raw');
    await run('synthetic 2y x 31: import + full rebuild', history, LAST_DAY);
    await run('synthetic: same file again (no-op)', history, LAST_DAY);
    const [inc, incMs] = await time(() =>
      rebuildFxDaily(db, { windowDays: 730, today: addDays(LAST_DAY, 1) }),
    );
    report(
      engine.name,
      'synthetic: next day (incremental)',
      incMs,
      `${inc.daysRebuilt} days, +${inc.rowsInserted} rows`,
    );
    const [full, fullMs] = await time(() =>
      rebuildFxDaily(db, { windowDays: 730, today: addDays(LAST_DAY, 1), full: true }),
    );
    report(
      engine.name,
      'synthetic: forced full rebuild',
      fullMs,
      `${full.daysRebuilt} days, ${full.currencies.length} currencies, ${full.rowsTotal} rows`,
    );
  } finally {
    await db.close();
    await engine.dispose();
  }
}
