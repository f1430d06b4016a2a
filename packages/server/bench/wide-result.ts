// The wide-result attack of issue 10 against the built server on both engines: `SELECT note c0, ..., note c1599
// FROM ledger_entries` over rows with 2,000-character notes (16 MB and more in a few rows), sent by one key
// and by two at once, and a script of six such statements. Reports the answers and the server's RSS: idle, and
// the peak while the attack runs (sampled every 20 ms), so memory stays bounded by maxResultBytes.
// Run in packages/server: node --conditions=@expense/source --import tsx bench/wide-result.ts
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS, type RoutePath } from '@expense/wire/route-paths';
import { callRoute } from './lib/http.js';
import { RssSampler, rssMiB } from './lib/rss.js';
import { openForSeeding, seed } from './lib/seed.js';
import { startServerProcess } from './lib/server-process.js';

const HIGH_LIMITS = { EXPENSE_RATE_PER_SECOND: '1000000', EXPENSE_RATE_PER_DAY: '1000000000' };
const wide = `SELECT ${Array.from({ length: 1600 }, (_, i) => `note c${i}`).join(', ')} FROM ledger_entries`;
const note = 'n'.repeat(2000);

interface Outcome {
  engine: string;
  idleMiB: number;
  peakMiB: number;
  answers: Record<string, number>;
  afterwards: number;
}

async function attack(engine: string, env: Record<string, string>, apiKeys: string[]): Promise<Outcome> {
  const server = await startServerProcess({ env: { ...env, ...HIGH_LIMITS } });
  try {
    const post = (key: string, route: RoutePath, sql: string) =>
      callRoute(server.origin, route, { key, body: { sql }, timeoutMs: 120_000 });
    const [first, second] = apiKeys as [string, string];
    const values = Array.from(
      { length: 10 },
      (_, i) => `(TIMESTAMPTZ '2026-01-01 00:00:00+00', 'wide', ${i + 1}, 'EUR', 'spend', '${note}')`,
    ).join(', ');
    const cols = '(ts, account_id, amount, currency, kind, note)';
    for (const key of [first, second]) {
      const seeded = await post(
        key,
        ROUTE_PATHS.sqlExecute,
        `INSERT INTO ledger_entries ${cols} VALUES ${values}`,
      );
      if (seeded.status !== 200) throw new Error(`seeding failed: ${seeded.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleMiB = rssMiB(server.pid) ?? 0;
    const sampler = new RssSampler(server.pid, 20);
    const answers: Record<string, number> = {};
    const count = (label: string, status: number) => {
      answers[`${label} ${status}`] = (answers[`${label} ${status}`] ?? 0) + 1;
    };
    for (let round = 0; round < 3; round++) {
      count('one key', (await post(first, ROUTE_PATHS.sqlQuery, wide)).status);
      const both = await Promise.all([
        post(first, ROUTE_PATHS.sqlQuery, wide),
        post(second, ROUTE_PATHS.sqlQuery, wide),
      ]);
      for (const r of both) count('two keys at once', r.status);
      const script = Array.from({ length: 6 }, () => `${wide} LIMIT 1`).join('; ');
      count('script of six', (await post(first, ROUTE_PATHS.sqlScript, script)).status);
    }
    const peak = sampler.stop();
    const after = await post(first, ROUTE_PATHS.sqlQuery, 'SELECT count(*) AS n FROM ledger_entries');
    return {
      engine,
      idleMiB: Math.round(idleMiB),
      peakMiB: Math.round(peak.maxMiB),
      answers,
      afterwards: after.status,
    };
  } finally {
    await server.stop();
  }
}

const outcomes: Outcome[] = [];
{
  const dataDir = await mkdtemp(join(tmpdir(), 'expense-wide-bench-'));
  try {
    const seeding = await openForSeeding({ dataDir });
    const keys = await seed(seeding, { users: 2 });
    await seeding.close();
    outcomes.push(
      await attack(
        'PGlite',
        { EXPENSE_DATA_DIR: dataDir },
        keys.map((k) => k.apiKey),
      ),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
{
  const db = await freshPostgres({ prefix: 'expense_wide' });
  try {
    const seeding = await openForSeeding({ databaseUrl: db.url });
    const keys = await seed(seeding, { users: 2 });
    await seeding.close();
    outcomes.push(
      await attack(
        'PostgreSQL',
        { DATABASE_URL: db.url },
        keys.map((k) => k.apiKey),
      ),
    );
  } finally {
    await db.drop();
  }
}

console.log('| engine | idle RSS | peak RSS during the attack | answers | next request |');
console.log('|---|---|---|---|---|');
for (const o of outcomes) {
  const answers = Object.entries(o.answers)
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  console.log(`| ${o.engine} | ${o.idleMiB} MiB | ${o.peakMiB} MiB | ${answers} | ${o.afterwards} |`);
}
