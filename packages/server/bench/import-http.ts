// POST /v1/imports of a 10,000-row bank export (Chase checking's layout, as bench/import.ts writes it) against the
// built server: each round a fresh workspace, a dry run then the commit, timed from the request to the answer,
// after one warm-up import of 200 rows. With --before-bin, another build (an earlier commit's dist/bin.js) runs
// beside it, the rounds alternated between the two: issue 37 wants the import within 1.2x of before the file was
// read in the read pool's worker threads.
//
//   node --conditions=@expense/source --import tsx bench/import-http.ts [--rows 10000] [--rounds 5]
//     [--engines postgres,pglite] [--before-bin /path/to/before/dist/bin.js]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgres, median } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { chaseCsv } from './lib/bank-csv.js';
import { callRoute } from './lib/http.js';
import { machineInfo } from './lib/machine.js';
import { arg, log, writeResult } from './lib/results.js';
import { openForSeeding, type SeededKey, seed } from './lib/seed.js';
import { startServerProcess } from './lib/server-process.js';

const ROWS = Number(arg('rows', '10000'));
const ROUNDS = Number(arg('rounds', '5'));
const ENGINES = arg('engines', 'postgres,pglite').split(',');
const BEFORE = arg('before-bin', '');

const ms = (t: number) => Math.round(performance.now() - t);

interface Target {
  build: 'before' | 'after';
  server: Awaited<ReturnType<typeof startServerProcess>>;
  key: SeededKey;
  dry: number[];
  commit: number[];
}

/** One round on one server: a fresh workspace, the dry run, then the commit; `timed` false for the warm-up. */
async function round(t: Target, file: Buffer, rows: number, timed: boolean) {
  const ws = await callRoute(t.server.origin, ROUTE_PATHS.createWorkspace, {
    key: t.key.apiKey,
    body: { name: `import bench ${Math.random().toString(36).slice(2, 10)}` },
  });
  const workspaceId = ws.body?.data?.workspace?.workspaceId as string;
  if (!workspaceId) throw new Error(`no workspace: ${JSON.stringify(ws.body)}`);
  for (const [times, query] of [
    [t.dry, { account: 'checking', dryRun: true }],
    [t.commit, { account: 'checking' }],
  ] as const) {
    const started = performance.now();
    const res = await callRoute(t.server.origin, ROUTE_PATHS.importFile, {
      query,
      key: t.key.apiKey,
      rawBody: file,
      headers: { 'content-type': 'text/csv', 'x-workspace-id': workspaceId },
      timeoutMs: 600_000,
    });
    if (timed) times.push(ms(started));
    if (res.status !== 200 || res.body?.data?.rows?.add !== rows)
      throw new Error(`import ${query}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  }
}

const file = Buffer.from(chaseCsv(ROWS));
const warmUp = Buffer.from(chaseCsv(200));
const work = mkdtempSync(join(tmpdir(), 'expense-bench-import-http-'));
const runs = [];
try {
  for (const engine of ENGINES) {
    const targets: Target[] = [];
    const drops: (() => Promise<void>)[] = [];
    try {
      // Both builds run side by side, their rounds alternated: the machine's load falls on both alike.
      for (const [build, bin] of [
        ...(BEFORE ? ([['before', BEFORE]] as const) : []),
        ['after', undefined] as const,
      ]) {
        let env: Record<string, string>;
        if (engine === 'postgres') {
          const db = await freshPostgres({ prefix: 'expense_bench_import_http' });
          env = { DATABASE_URL: db.url };
          drops.push(() => db.drop());
        } else env = { EXPENSE_DATA_DIR: join(work, `pglite-${build}`) };
        const s = await openForSeeding(
          engine === 'postgres' ? { databaseUrl: env.DATABASE_URL! } : { dataDir: env.EXPENSE_DATA_DIR! },
        );
        const [key] = await seed(s, { users: 1 });
        await s.close();
        const server = await startServerProcess({
          env: { ...env, EXPENSE_RATE_PER_SECOND: '100000', EXPENSE_RATE_PER_DAY: '10000000' },
          ...(bin ? { bin } : {}),
        });
        drops.unshift(async () => void (await server.stop()));
        targets.push({ build, server, key: key!, dry: [], commit: [] });
      }
      for (const t of targets) await round(t, warmUp, 200, false);
      for (let r = 0; r < ROUNDS; r++) for (const t of targets) await round(t, file, ROWS, true);
      for (const t of targets) {
        const result = {
          engine,
          build: t.build,
          rows: ROWS,
          dryRunMs: median(t.dry),
          commitMs: median(t.commit),
          dryRuns: t.dry,
          commits: t.commit,
        };
        log(
          `  ${engine} ${t.build}: dry run ${result.dryRunMs} ms, commit ${result.commitMs} ms (medians of ${ROUNDS})`,
        );
        runs.push(result);
      }
    } finally {
      for (const drop of drops) await drop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
log(
  `wrote ${writeResult('import-http', { machine: await machineInfo(), command: `node bench/import-http.ts --rows ${ROWS} --rounds ${ROUNDS}`, runs })}`,
);
