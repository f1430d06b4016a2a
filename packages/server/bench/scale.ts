// Speed at scale (issue 42): one household's workspace (~20,000 entries over ten years, budgets, 500 changes of
// history, two members) measured among thousands of workspaces and millions of entries, against the same workspace
// alone in an empty database. Two fresh PostgreSQL databases (freshPostgres, dropped after), each migrated and
// given the target by the server's own functions, then filled in SQL (lib/scale-data.ts: the other workspaces only
// in the scale database; the target's rows are the same in both). Two servers of the same build, one per database,
// answer the same requests, interleaved request by request (the order of the two flips every round), one at a time:
// the small read, a month aggregate, each report for a month and a year, the history's first and a later page, an
// import of 1,000 rows (POST /v1/imports) and the revert of each of its changes, the export. Then the plans of
// every path in both databases (lib/plans.ts), checked for scans that read another workspace's rows.
//
//   node --conditions=@expense/source --import tsx bench/scale.ts [--workspaces 10000] [--entries 10000000]
//        [--rounds 7] [--keep]   (--keep leaves the databases for a look and prints their URLs)
// Prints a Markdown section (pnpm bench keeps it in bench-results/scale.txt), writes bench-results/scale.json.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { buildInsert, type LedgerRow } from '@expense/import';
import { freshPostgres, median } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import pg from 'pg';
import { changeConflicts, listChanges, revertRows } from '../src/features/changes/store.js';
import { relationColumns } from '../src/features/portability/columns.js';
import { exportHeader } from '../src/features/portability/header.js';
import {
  changeBatches,
  changeRowBatches,
  EXPORT_RELATIONS,
  newestChange,
  relationBatches,
} from '../src/features/portability/reader.js';
import { reportScript } from '../src/features/reports/sql.js';
import type { Queryable } from '../src/platform/storage/database.js';
import { contextSelect } from '../src/platform/storage/transactions.js';
import { chaseCsv } from './lib/bank-csv.js';
import { callRoute, type HttpResponse } from './lib/http.js';
import { machineInfo } from './lib/machine.js';
import { type LoggedPlan, PlanRecorder, type Scan, scansOf } from './lib/plans.js';
import { arg, log, writeResult } from './lib/results.js';
import { round } from './lib/rss.js';
import { generateScale, type ScaleCounts } from './lib/scale-data.js';
import { createUser, openForSeeding, type SeededKey, seed } from './lib/seed.js';
import { type ServerProcess, startServerProcess } from './lib/server-process.js';

const WORKSPACES = Number(arg('workspaces', '10000'));
const ENTRIES = Number(arg('entries', '10000000'));
const ROUNDS = Math.max(1, Number(arg('rounds', '7')));
const KEEP = process.argv.includes('--keep');
const TARGET_ENTRIES = 20_000;
const IMPORT_ROWS = 1000;
/** Per-key limits raised (as in sql-throughput.ts): one key sends every request; they are still consulted. */
const HIGH_LIMITS = {
  EXPENSE_RATE_PER_SECOND: '1000000',
  EXPENSE_RATE_PER_DAY: '1000000000',
  EXPENSE_MAX_INFLIGHT_PER_KEY: '64',
  EXPENSE_MAX_INFLIGHT_PER_USER: '64',
};
const GOAL = 1.5;
const READS_PER_ROUND = 3;

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

interface Side {
  name: 'alone' | 'scale';
  url: string;
  key: SeededKey;
  partnerId: string;
  counts?: ScaleCounts;
  server?: ServerProcess;
  /** A change deep in the history (the 201st newest generated one): `before` of the later page. */
  laterPageBefore?: string;
}

const MONTH = { from: '2026-03-01', to: '2026-03-31' };
const YEAR = { from: '2025-01-01', to: '2025-12-31' };
const REPORT_KINDS = ['spend_by_category', 'budget_vs_actual', 'balances', 'monthly_trend'] as const;
const SMALL_READ =
  'SELECT entry_id, ts, account_id, amount, currency, kind, category FROM ledger_entries ORDER BY ts DESC LIMIT 20';
const MONTH_AGGREGATE =
  "SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ts >= TIMESTAMPTZ '2026-03-01 00:00:00' AND ts < TIMESTAMPTZ '2026-04-01 00:00:00' AND kind = 'spend' GROUP BY category ORDER BY category";

interface Read {
  name: string;
  send(side: Side): Promise<HttpResponse>;
}

const sql = (text: string) => (side: Side) =>
  callRoute(side.server!.origin, ROUTE_PATHS.sqlQuery, { key: side.key.apiKey, body: { sql: text } });

const READS: Read[] = [
  { name: 'small read (ORDER BY ts DESC LIMIT 20)', send: sql(SMALL_READ) },
  { name: 'month aggregate (spend by category)', send: sql(MONTH_AGGREGATE) },
  ...REPORT_KINDS.flatMap((kind) =>
    (
      [
        ['month', MONTH],
        ['year', YEAR],
      ] as const
    ).map(([span, range]) => ({
      name: `report ${kind}, ${span}`,
      send: (side: Side) =>
        callRoute(side.server!.origin, ROUTE_PATHS.report, {
          params: { kind },
          query: { from: range.from, to: range.to },
          key: side.key.apiKey,
        }),
    })),
  ),
  {
    name: 'changes, first page',
    send: (side) => callRoute(side.server!.origin, ROUTE_PATHS.changes, { key: side.key.apiKey }),
  },
  {
    name: 'changes, a later page (201st newest on)',
    send: (side) =>
      callRoute(side.server!.origin, ROUTE_PATHS.changes, {
        query: { before: side.laterPageBefore },
        key: side.key.apiKey,
      }),
  },
  {
    name: 'export (GET /v1/workspaces/{id}/export)',
    send: (side) =>
      callRoute(side.server!.origin, ROUTE_PATHS.exportWorkspace, {
        params: { workspaceId: side.key.workspaceIds[0]! },
        key: side.key.apiKey,
        timeoutMs: 120_000,
      }),
  },
];
const IMPORT = `import of ${IMPORT_ROWS} rows (POST /v1/imports)`;
const REVERT = 'revert of one change (100 rows)';

/** A checking account's export (Chase's layout, as bench/import.ts), its lines unique to the round. */
const bankFile = (tag: string): string => chaseCsv(IMPORT_ROWS, tag);

function ok(res: HttpResponse, what: string, side: Side): HttpResponse {
  if (res.status !== 200) throw new Error(`${what} on ${side.name}: ${res.status} ${res.text.slice(0, 600)}`);
  return res;
}

/** Imports a file and reverts each change it made, newest first: the workspace is as before. */
async function importAndRevert(side: Side, tag: string, times: Record<string, number[]>): Promise<void> {
  const origin = side.server!.origin;
  const imported = ok(
    await callRoute(origin, ROUTE_PATHS.importFile, {
      query: { account: 'checking' },
      key: side.key.apiKey,
      rawBody: bankFile(tag),
      headers: { 'content-type': 'text/csv' },
      timeoutMs: 120_000,
    }),
    'import',
    side,
  );
  times[IMPORT]!.push(imported.ms);
  const changeId = imported.body?.data?.changeId as string;
  const change = ok(
    await callRoute(origin, ROUTE_PATHS.change, { params: { changeId }, key: side.key.apiKey }),
    'change',
    side,
  );
  const members = ((change.body?.data?.members ?? [{ changeId }]) as { changeId: string }[]).map(
    (m) => m.changeId,
  );
  for (const id of members.reverse()) {
    const reverted = ok(
      await callRoute(origin, ROUTE_PATHS.revertChange, {
        params: { changeId: id },
        key: side.key.apiKey,
        body: {},
      }),
      'revert',
      side,
    );
    times[REVERT]!.push(reverted.ms);
  }
}

async function prepare(side: Side, others: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: side.url });
  await client.connect();
  try {
    side.counts = await generateScale(client, {
      workspaces: others ? WORKSPACES : 1,
      entries: others ? ENTRIES : TARGET_ENTRIES,
      target: { workspaceId: side.key.workspaceIds[0]!, userId: side.key.userId, partnerId: side.partnerId },
      targetEntries: TARGET_ENTRIES,
      chunks: others ? 40 : 1,
      log,
    });
    const { rows } = await client.query<{ change_id: string }>(
      `SELECT change_id FROM expense_internal.changes WHERE workspace_id = $1 ORDER BY seq DESC OFFSET 200 LIMIT 1`,
      [side.key.workspaceIds[0]],
    );
    side.laterPageBefore = rows[0]!.change_id;
  } finally {
    await client.end();
  }
}

/** The target's own rows per shared relation: a scan that reads more per loop read another workspace's. */
async function ownRows(side: Side): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: side.url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM public.ledger_entries WHERE workspace_id = $1) AS ledger_entries,
              (SELECT count(*) FROM public.budget_lines WHERE workspace_id = $1) AS budget_lines,
              (SELECT count(*) FROM public.account_metadata WHERE workspace_id = $1) AS account_metadata,
              (SELECT count(*) FROM public.workspace_settings WHERE workspace_id = $1) AS workspace_settings,
              (SELECT count(*) FROM expense_internal.changes WHERE workspace_id = $1) AS changes,
              (SELECT count(*) FROM expense_internal.change_rows r JOIN expense_internal.changes c USING (change_id)
                WHERE c.workspace_id = $1) AS change_rows,
              1 AS change_usage, 1 AS workspaces,
              (SELECT count(*) FROM expense_internal.workspace_members WHERE workspace_id = $1) AS workspace_members,
              (SELECT count(*) FROM expense_internal.workspace_members WHERE workspace_id = $1) AS users,
              (SELECT count(*) FROM expense_internal.api_keys k JOIN expense_internal.workspace_members m USING (user_id)
                WHERE m.workspace_id = $1) AS api_keys`,
      [side.key.workspaceIds[0]],
    );
    return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
  } finally {
    await client.end();
  }
}

/** A read as the SQL endpoints run it: the context SELECT (SQL role, RLS), then the statement; a read without a
 *  LIMIT runs through a cursor, as the guard runs it. */
async function userRead(q: Queryable, ctx: string, statements: string[]) {
  await q.query('BEGIN READ ONLY');
  await q.query(ctx);
  for (const s of statements) {
    if (/\bLIMIT \d+$/.test(s)) await q.query(s);
    else
      await q.query(
        `DECLARE plan_cursor NO SCROLL CURSOR FOR ${s}; FETCH 1001 FROM plan_cursor; CLOSE plan_cursor`,
      );
  }
  await q.query('ROLLBACK');
}

/** The statements of each measured path, as the server sends them, on the recorder's connection. */
async function pathPlans(side: Side): Promise<Record<string, LoggedPlan[]>> {
  const recorder = new PlanRecorder(side.url);
  await recorder.open();
  const workspaceId = side.key.workspaceIds[0]!;
  const userId = side.key.userId;
  const readCtx = contextSelect({ userId, workspaceId: { savedBy: side.key.connectionId }, readOnly: true });
  const out: Record<string, LoggedPlan[]> = {};
  try {
    out[READS[0]!.name] = await recorder.record((q) => userRead(q, readCtx, [SMALL_READ]));
    out[READS[1]!.name] = await recorder.record((q) => userRead(q, readCtx, [MONTH_AGGREGATE]));
    const given = contextSelect({ userId, workspaceId, readOnly: true });
    for (const kind of REPORT_KINDS) {
      for (const [span, range] of [
        ['month', MONTH],
        ['year', YEAR],
      ] as const) {
        out[`report ${kind}, ${span}`] = await recorder.record((q) =>
          userRead(q, given, reportScript({ kind, ...range })),
        );
      }
    }
    out[READS[10]!.name] = await recorder.record(async (q) => {
      await listChanges(q, workspaceId, { limit: 20 });
    });
    out[READS[11]!.name] = await recorder.record(async (q) => {
      await listChanges(q, workspaceId, { limit: 20, before: side.laterPageBefore! });
    });
    out[READS[12]!.name] = await recorder.record(async (q) => {
      const source = { db: q, workspaceId };
      await exportHeader(source);
      await newestChange(source);
      for (const relation of EXPORT_RELATIONS) {
        for await (const _ of relationBatches(source, relation, await relationColumns(q, relation), 'json')) {
        }
      }
      for await (const _ of changeBatches(source, 'json')) {
      }
      for await (const _ of changeRowBatches(source, 'json')) {
      }
    });
    // One 100-row batch of an import as POST /v1/imports sends it (buildInsert), recorded as a change, rolled back.
    const rows: LedgerRow[] = Array.from({ length: 100 }, (_, i) => ({
      line: i + 2,
      ts: `2026-02-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z`,
      account_id: 'checking',
      amount: `-${(i % 400) + 1}.25`,
      currency: 'USD',
      kind: 'spend',
      category: null,
      counterparty: `SHOP plan ${i}`,
      note: null,
      event_id: null,
      external_id: `plan-import-${i}`,
    }));
    const insert = `${buildInsert(rows)}\nRETURNING external_id`;
    out[IMPORT] = await recorder.record(async (q) => {
      await q.query('BEGIN');
      await q.query(
        contextSelect({
          userId,
          workspaceId,
          readOnly: false,
          change: { endpoint: 'execute', connectionId: side.key.connectionId, sql: insert },
        }),
      );
      await q.query(insert);
      await q.query('ROLLBACK');
    });
    // The revert of the newest change, as revert.ts runs it (owner checks, then the inverse as the SQL role), rolled back.
    out[REVERT] = await recorder.record(async (q) => {
      const { rows: newest } = await q.query<{ change_id: string }>(
        'SELECT change_id FROM expense_internal.changes WHERE workspace_id = $1 ORDER BY seq DESC LIMIT 1',
        [workspaceId],
      );
      const changeId = newest[0]!.change_id;
      await q.query('BEGIN');
      await q.query('SELECT expense_internal.lock_change_usage($1)', [workspaceId]);
      await changeConflicts(q, changeId);
      await revertRows(q, changeId);
      const inverse = await q.query<{ sql: string }>(
        'SELECT expense_internal.change_inverse_sql($1) AS sql',
        [changeId],
      );
      const text = inverse.rows[0]?.sql ?? '';
      await q.query(`SELECT expense_internal.begin_change('revert', $1, $2, $3) AS id`, [
        side.key.connectionId,
        text,
        changeId,
      ]);
      await q.query(contextSelect({ userId, workspaceId, readOnly: false }));
      if (text) await q.query(text);
      await q.query('SET CONSTRAINTS ALL IMMEDIATE; ROLLBACK');
    });
  } finally {
    await recorder.close();
  }
  return out;
}

interface PathCheck {
  /** Scans whose rows per loop exceed the workspace's own rows in their relation. */
  foreign: (Scan & { query: string; own: number })[];
  /** Rows read by every scan of a shared relation, all statements. */
  read: number;
  statements: number;
  /** The scans of the path (deduplicated by query and node), for the report. */
  scans: (Scan & { query: string; times: number })[];
}

function check(plans: LoggedPlan[], own: Record<string, number>): PathCheck {
  const scans = new Map<string, Scan & { query: string; times: number }>();
  let read = 0;
  for (const p of plans) {
    for (const s of scansOf(p.plan)) {
      read += s.read;
      // One line per statement and scan, whatever the literals (a row trigger's lookup runs once per row).
      const key = `${p.query}\n${s.relation}\n${s.node}\n${s.index ?? ''}\n${s.cond ?? ''}`.replace(
        /'[^']*'/g,
        '?',
      );
      const seen = scans.get(key);
      if (!seen) scans.set(key, { ...s, query: p.query, times: 1 });
      else {
        seen.times++;
        if (s.read / Math.max(1, s.loops) > seen.read / Math.max(1, seen.loops)) {
          seen.read = s.read;
          seen.loops = s.loops;
        }
        seen.buffers = Math.max(seen.buffers, s.buffers);
      }
    }
  }
  const all = [...scans.values()];
  const foreign = all
    .filter((s) => s.read / Math.max(1, s.loops) > Math.max(own[s.relation] ?? 0, 1))
    .map((s) => ({ ...s, own: own[s.relation] ?? 0 }));
  return { foreign, read, statements: plans.length, scans: all };
}

const oneLine = (s: string, max = 110) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

// ---------------------------------------------------------------------------------------------------------------
const machine = await machineInfo();
const gauge: { at: string; uptime: string }[] = [{ at: 'start', uptime: uptime() }];
log(`scale bench: ${WORKSPACES} workspaces, ${ENTRIES} entries; ${gauge[0]!.uptime}`);
const tag = Math.random().toString(36).slice(2, 8);
const dbs = {
  alone: await freshPostgres({ prefix: 'expense_scale_alone' }),
  scale: await freshPostgres({ prefix: 'expense_scale' }),
};
const sides: Side[] = [];
try {
  for (const name of ['alone', 'scale'] as const) {
    const db = await openForSeeding({ databaseUrl: dbs[name].url });
    try {
      const [key] = await seed(db, { users: 1, tag });
      const partnerId = await db.transaction((tx) => createUser(tx, `partner-${tag}@example.com`));
      sides.push({ name, url: dbs[name].url, key: key!, partnerId });
    } finally {
      await db.close();
    }
  }
  const [alone, scale] = sides as [Side, Side];
  log('generating the target alone…');
  await prepare(alone, false);
  log(`generating ${WORKSPACES} workspaces and ${ENTRIES} entries…`);
  await prepare(scale, true);
  gauge.push({ at: 'generated', uptime: uptime() });
  log(`generated: ${JSON.stringify(scale.counts)}; ${gauge.at(-1)!.uptime}`);

  for (const side of sides)
    side.server = await startServerProcess({ env: { DATABASE_URL: side.url, ...HIGH_LIMITS } });
  const names = [...READS.map((r) => r.name), IMPORT, REVERT];
  const times: Record<'alone' | 'scale', Record<string, number[]>> = {
    alone: Object.fromEntries(names.map((n) => [n, [] as number[]])),
    scale: Object.fromEntries(names.map((n) => [n, [] as number[]])),
  };
  const loads: number[] = [];
  // Warm-up: every read twice on each side (caches, the servers' first plans), one import and its reverts.
  for (let w = 0; w < 2; w++)
    for (const read of READS) for (const side of sides) ok(await read.send(side), read.name, side);
  const warm: Record<string, number[]> = { [IMPORT]: [], [REVERT]: [] };
  for (const side of sides) await importAndRevert(side, `warm-${side.name}`, warm);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [alone, scale] : [scale, alone];
    for (const read of READS) {
      // The reads that take milliseconds several times a round: their medians are of more samples.
      const repeat = read === READS.at(-1) ? 1 : READS_PER_ROUND;
      for (let i = 0; i < repeat; i++)
        for (const side of order)
          times[side.name][read.name]!.push(ok(await read.send(side), read.name, side).ms);
    }
    for (const side of order) await importAndRevert(side, `r${r}`, times[side.name]);
    loads.push(loadavg()[0]!);
    log(`round ${r + 1}/${ROUNDS}: load ${loadavg()[0]!.toFixed(2)}`);
  }
  gauge.push({ at: 'measured', uptime: uptime() });
  for (const side of sides) await side.server?.stop();

  log('plans…');
  const own = { alone: await ownRows(alone), scale: await ownRows(scale) };
  const plans = { alone: await pathPlans(alone), scale: await pathPlans(scale) };
  gauge.push({ at: 'end', uptime: uptime() });

  const rows = names.map((name) => {
    const a = median(times.alone[name]!);
    const s = median(times.scale[name]!);
    const ca = check(plans.alone[name] ?? [], own.alone);
    const cs = check(plans.scale[name] ?? [], own.scale);
    return {
      name,
      samples: times.scale[name]!.length,
      aloneMs: round(a, 2),
      scaleMs: round(s, 2),
      ratio: round(s / a, 2),
      met: s / a <= GOAL,
      readAlone: ca.read,
      readScale: cs.read,
      foreign: cs.foreign,
      scans: cs.scans,
    };
  });

  const md: string[] = [];
  const c = scale.counts!;
  md.push(
    `Sizes: ${c.workspaces.toLocaleString('en-US')} workspaces, ${c.entries.toLocaleString('en-US')} ledger entries, ${c.budgetLines.toLocaleString('en-US')} budget lines, ${c.changes.toLocaleString('en-US')} changes with ${c.changeRows.toLocaleString('en-US')} row images, ${c.members.toLocaleString('en-US')} members of ${c.users.toLocaleString('en-US')} users (generated in ${c.seconds} s; the target alone in ${alone.counts!.seconds} s).`,
    `The target: ${c.target.entries.toLocaleString('en-US')} entries over ten years, ${c.target.budgetLines} budget lines, ${c.target.changes} changes (${c.target.changeRows} row images), two members; the same rows in both databases.`,
    `${ROUNDS} rounds, each request on alone and on scale in turn (the order flips every round; each read but the export ${READS_PER_ROUND} times a round); an import's ${IMPORT_ROWS} rows are reverted change by change after it. ${machine.postgres}, ${machine.nproc} cores, Node ${machine.node}.`,
    '',
    `Load (uptime): ${gauge.map((g) => `${g.at}: ${g.uptime.replace(/^.*load average: /, '')}`).join('; ')}; 1-minute load at the end of each round: ${loads.map((l) => l.toFixed(2)).join(', ')}.`,
    '',
    `| request | alone median ms | scale median ms | scale/alone | goal ≤ ${GOAL}x | rows read alone / scale | scans of other workspaces' rows |`,
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.aloneMs} | ${r.scaleMs} | ${r.ratio.toFixed(2)}x | ${r.met ? 'met' : '**not met**'} | ${r.readAlone.toLocaleString('en-US')} / ${r.readScale.toLocaleString('en-US')} | ${r.foreign.length === 0 ? 'none' : `**${r.foreign.length}**`} |`,
    ),
    '',
    "Plans at scale (auto_explain, ANALYZE and BUFFERS, under the SQL role with the request's context where the request runs user SQL; rows read per statement, the largest of its runs):",
    '',
  );
  for (const r of rows) {
    md.push(`- ${r.name}:`);
    for (const s of r.scans) {
      md.push(
        `  - \`${oneLine(s.query, 90)}\`${s.times > 1 ? ` (×${s.times})` : ''}: ${s.node}${s.index ? ` using ${s.index}` : ''} on ${s.relation}${s.cond ? ` (${oneLine(s.cond, 80)})` : ''}${s.filter ? `, filter ${oneLine(s.filter, 60)}` : ''}: ${s.read.toLocaleString('en-US')} rows read, ${s.buffers} buffers`,
      );
    }
    for (const f of r.foreign)
      md.push(
        `  - **reads another workspace's rows**: ${f.node} on ${f.relation} read ${f.read} rows in ${f.loops} loop(s), the workspace has ${f.own}: \`${oneLine(f.query, 90)}\``,
      );
  }
  process.stdout.write(`${md.join('\n')}\n`);
  log(
    `wrote ${writeResult('scale', {
      machine,
      command: `node bench/scale.ts --workspaces ${WORKSPACES} --entries ${ENTRIES} --rounds ${ROUNDS}`,
      counts: { scale: scale.counts, alone: alone.counts },
      gauge,
      loads,
      goal: GOAL,
      rows: rows.map(({ scans: _s, ...r }) => r),
      times,
      plans: Object.fromEntries(
        rows.map((r) => [r.name, r.scans.map((s) => ({ ...s, query: oneLine(s.query, 400) }))]),
      ),
    })}`,
  );
  const failed = rows.filter((r) => !r.met || r.foreign.length > 0);
  log(
    failed.length === 0
      ? `every request ≤ ${GOAL}x of alone and no scan of another workspace's rows`
      : `not met: ${failed.map((r) => `${r.name} (${r.ratio}x${r.foreign.length ? `, ${r.foreign.length} foreign scans` : ''})`).join('; ')}`,
  );
} finally {
  for (const side of sides) await side.server?.kill();
  if (KEEP) log(`kept: ${dbs.alone.url} ${dbs.scale.url}`);
  else {
    await dbs.alone.drop();
    await dbs.scale.drop();
  }
}
