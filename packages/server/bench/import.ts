// A 10,000-row bank export (Chase checking's layout, recognised by the CLI: trailing comma on every data row,
// MM/DD/YYYY) through the CLI binary (`expense import FILE --account checking`, batches of 100, honouring 429
// Retry-After) against a server with the DEFAULT per-key limit (10 requests per second): the floor the limit sets
// is 10,000 / 100 = 100 requests at 10/s = 10 s, 1,000 rows/s. The import rate is reported beside that floor.
// Run once per engine; server RSS sampled.
//
//   node --conditions=@expense/source --import tsx bench/import.ts [--rows 10000] [--engines pglite,postgres]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { chaseCsv } from './lib/bank-csv.js';
import { callRoute } from './lib/http.js';
import { machineInfo } from './lib/machine.js';
import { CLI_BIN_DIST } from './lib/paths.js';
import { arg, log, writeResult } from './lib/results.js';
import { RssSampler, round } from './lib/rss.js';
import { openForSeeding, type SeededKey, seed } from './lib/seed.js';
import { startServerProcess } from './lib/server-process.js';

const ROWS = Number(arg('rows', '10000'));
const ENGINES = arg('engines', 'pglite,postgres').split(',');
const BATCH = 100;
const DEFAULT_RATE_PER_SECOND = 10;

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN_DIST, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function importRun(
  engine: string,
  target: { DATABASE_URL?: string; EXPENSE_DATA_DIR?: string },
  key: SeededKey,
  file: string,
  home: string,
) {
  const server = await startServerProcess({ env: { ...target } });
  try {
    const rss = new RssSampler(server.pid, 250);
    const started = performance.now();
    const result = await runCli(['--json', 'import', file, '--account', 'checking', '--yes'], {
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      EXPENSE_API_URL: server.baseUrl,
      EXPENSE_API_KEY: key.apiKey,
      EXPENSE_NO_INPUT: '1',
      NO_COLOR: '1',
    });
    const seconds = (performance.now() - started) / 1000;
    const memory = rss.stop();
    if (result.code !== 0)
      throw new Error(`expense import failed (${result.code}): ${result.stderr.slice(-2000)}`);
    const count = await callRoute(server.origin, ROUTE_PATHS.sqlQuery, {
      key: key.apiKey,
      body: { sql: "SELECT count(*) AS n FROM ledger_entries WHERE account_id = 'checking'" },
    });
    const stored = Number(count.body?.data?.statements?.[0]?.rows?.[0]?.n);
    const floorS = ROWS / BATCH / DEFAULT_RATE_PER_SECOND;
    const summary = {
      engine,
      rows: ROWS,
      stored,
      seconds: round(seconds, 2),
      floorSeconds: floorS,
      ratioToFloor: round(seconds / floorS, 2),
      rowsPerSecond: round(ROWS / seconds, 0),
      floorRowsPerSecond: BATCH * DEFAULT_RATE_PER_SECOND,
      cliSummary: JSON.parse(result.stdout || '{}'),
      memory,
    };
    log(
      `  ${engine}: ${summary.rowsPerSecond} rows/s beside the rate limit's floor of ${summary.floorRowsPerSecond} rows/s (${summary.seconds} s, floor ${floorS} s, ratio ${summary.ratioToFloor}), stored ${stored}`,
    );
    return summary;
  } finally {
    await server.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'expense-bench-import-'));
const file = join(work, 'bank.csv');
writeFileSync(file, chaseCsv(ROWS));
const runs = [];
try {
  for (const engine of ENGINES) {
    if (engine === 'postgres') {
      const db = await freshPostgres({ prefix: 'expense_bench_import' });
      try {
        const s = await openForSeeding({ databaseUrl: db.url });
        const [key] = await seed(s, { users: 1 });
        await s.close();
        runs.push(await importRun(engine, { DATABASE_URL: db.url }, key!, file, work));
      } finally {
        await db.drop();
      }
    } else {
      const dataDir = join(work, 'pglite');
      const s = await openForSeeding({ dataDir });
      const [key] = await seed(s, { users: 1 });
      await s.close();
      runs.push(await importRun(engine, { EXPENSE_DATA_DIR: dataDir }, key!, file, work));
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
log(
  `wrote ${writeResult('import', { machine: await machineInfo(), command: `node bench/import.ts --rows ${ROWS}`, batch: BATCH, ratePerSecond: DEFAULT_RATE_PER_SECOND, runs })}`,
);
