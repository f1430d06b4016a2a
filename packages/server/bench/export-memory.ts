// Export memory (issue 40: "export of 1 million entries stays under 200 MB of server memory"). A fresh PostgreSQL
// database (freshPostgres, dropped after) with one user, key and workspace made by the server's own functions
// (lib/seed.ts), then the workspace's ledger entries in SQL as the owner (INSERT … SELECT over generate_series, in
// chunks; its keys and indexes built after the load, its triggers disabled for it), budget lines, account metadata
// and settings, VACUUM (ANALYZE), and a few changes of history written over HTTP. The server runs in a child
// process (lib/server-process.ts: the built one when there is a build), so its memory is its own.
//
// Three reads of GET /v1/workspaces/{id}/export, one after another, each to a counting sink (nothing is held: the
// JSON is counted line by line as it passes, the zip inflated file by file as it arrives and its CSV records
// counted):
//   1. json: the whole document as fast as the bench reads;
//   2. csv:  ?format=csv, the whole zip;
//   3. slow: the JSON read at --slow-rate bytes a second for --slow-seconds, then dropped: a server that ignored
//      backpressure would keep producing and hold what the client has not read.
// The server's VmRSS and VmHWM (/proc/<pid>/status) every 100 ms; the baseline of each read is its RSS over the
// second before it. The counts of every relation are checked against the database's.
//
//   node --conditions=@expense/source --import tsx bench/export-memory.ts [--entries 1000000] [--slow-seconds 10]
//        [--slow-rate 1048576] [--keep]   (--keep leaves the database and prints its URL)
// Prints a Markdown section (pnpm bench keeps it in bench-results/export-memory.txt), writes
// bench-results/export-memory.json. Exits 1 when a count is wrong or the peak passes the goal.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInflateRaw } from 'node:zlib';
import { freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import pg from 'pg';
import { apiPath, callRoute } from './lib/http.js';
import { machineInfo } from './lib/machine.js';
import { arg, log, writeResult } from './lib/results.js';
import { round } from './lib/rss.js';
import { openForSeeding, seed } from './lib/seed.js';
import { defaultBuild, startServerProcess } from './lib/server-process.js';

const ENTRIES = Math.max(1, Number(arg('entries', '1000000')));
const SLOW_SECONDS = Math.max(1, Number(arg('slow-seconds', '10')));
const SLOW_RATE = Math.max(1024, Number(arg('slow-rate', String(1024 * 1024))));
const KEEP = process.argv.includes('--keep');
/** The goal of issue 40: 200 MB (10^6 bytes) of server memory, the peak of the process (VmHWM). */
const GOAL_MIB = 200e6 / 2 ** 20;
const CHUNK_ROWS = 250_000;
const SAMPLE_MS = 100;

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const mib = (bytes: number) => round(bytes / 2 ** 20, 1);

// ---- the server's memory ------------------------------------------------------------------------------------------

interface MemorySample {
  /** Seconds since the sampler started. */
  t: number;
  rssMiB: number;
  hwmMiB: number;
}

/** VmRSS and VmHWM (the peak resident set since the process started) of /proc/<pid>/status, in MiB. */
function memoryOf(pid: number): { rssMiB: number; hwmMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    const hwm = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return rss && hwm ? { rssMiB: Number(rss[1]) / 1024, hwmMiB: Number(hwm[1]) / 1024 } : undefined;
  } catch {
    return undefined;
  }
}

class MemorySampler {
  readonly samples: MemorySample[] = [];
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  now(): number {
    return (performance.now() - this.started) / 1000;
  }

  sample(): MemorySample | undefined {
    const m = memoryOf(this.pid);
    if (!m) return undefined;
    const s = { t: this.now(), ...m };
    this.samples.push(s);
    return s;
  }

  between(from: number, to: number): MemorySample[] {
    return this.samples.filter((s) => s.t >= from && s.t <= to);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

// ---- counting sinks ------------------------------------------------------------------------------------------------

interface JsonEnd {
  counts: Record<string, number>;
  changedDuringExport: boolean;
}

/**
 * Counts the rows of each array of the JSON export (docs/export-format.md: one row a line) as the bytes pass,
 * holding only the line in hand when it is not a row (the header, an array's name, `end`) and one ledger row in
 * 50,000, which is parsed as a check.
 */
class JsonCounter {
  bytes = 0;
  readonly rows: Record<string, number> = {};
  header: Record<string, unknown> | undefined;
  end: JsonEnd | undefined;
  closed = false;
  parsedRows = 0;
  readonly problems: string[] = [];
  private current: string | null = null;
  private lineNo = 0;
  private atStart = true;
  private isRow = false;
  private kept: Buffer[] | null = null;
  private keptBytes = 0;

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let pos = 0;
    while (pos < chunk.length) {
      if (this.atStart) {
        this.atStart = false;
        this.isRow = this.current !== null && chunk[pos] === 0x7b;
        const sampled =
          this.isRow && this.current === 'ledger_entries' && (this.rows[this.current] ?? 0) % 50_000 === 0;
        this.kept = !this.isRow || sampled ? [] : null;
        this.keptBytes = 0;
      }
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (this.kept) {
        this.kept.push(chunk.subarray(pos, end));
        this.keptBytes += end - pos;
        if (this.keptBytes > 1 << 20)
          throw new Error(`line ${this.lineNo + 1} of the JSON export passes 1 MiB`);
      }
      if (nl === -1) return;
      this.line();
      pos = nl + 1;
    }
  }

  private line(): void {
    const text = this.kept ? Buffer.concat(this.kept).toString('utf8') : null;
    this.kept = null;
    this.atStart = true;
    const n = this.lineNo++;
    if (this.isRow) {
      const name = this.current!;
      this.rows[name] = (this.rows[name] ?? 0) + 1;
      if (text !== null) {
        const row = JSON.parse(text.replace(/,$/, '')) as Record<string, unknown>;
        if (typeof row.entry_id !== 'string' || typeof row.amount !== 'string')
          this.problems.push(`ledger row ${this.rows[name]} lacks entry_id or an exact amount: ${text}`);
        this.parsedRows++;
      }
      return;
    }
    const t = text ?? '';
    const array = /^"(\w+)": \[(\],)?$/.exec(t);
    if (n === 0) this.header = JSON.parse(`${t.replace(/,$/, '')}}`) as Record<string, unknown>;
    else if (array) {
      this.rows[array[1]!] = 0;
      this.current = array[2] ? null : array[1]!;
    } else if (/^\],?$/.test(t)) this.current = null;
    else if (t.startsWith('"end": ')) this.end = JSON.parse(t.slice(7)) as JsonEnd;
    else if (t === '}') this.closed = true;
    else this.problems.push(`line ${n + 1} is not of the format: ${t.slice(0, 120)}`);
  }
}

interface ZipFileCount {
  name: string;
  /** CSV records (the header line included), counted outside quoted cells. */
  records: number;
  bytes: number;
  compressedBytes: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);

/**
 * Reads a zip as it arrives: each file's deflated bytes go through zlib's raw inflate (with backpressure) and its
 * CSV records are counted outside quoted cells; manifest.json is kept and parsed. The export's zip is streamed, so
 * each file ends with a data descriptor rather than sizes in its header: the descriptor is found by its signature
 * *and* a compressed size equal to the bytes read since the file began (fflate's Unzip takes the first signature,
 * which a few MB of deflated data hold by chance now and then), and its size is checked against the inflated bytes.
 */
class ZipCounter {
  bytes = 0;
  readonly files: ZipFileCount[] = [];
  manifest: Record<string, unknown> | undefined;
  reachedDirectory = false;
  readonly problems: string[] = [];
  private pending: Buffer = Buffer.alloc(0);
  private file:
    | {
        count: ZipFileCount;
        inflater: ReturnType<typeof createInflateRaw>;
        done: Promise<void>;
        descriptor: boolean;
        remaining: number;
        keep: Buffer[] | null;
      }
    | undefined;

  async push(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      if (this.reachedDirectory) {
        this.pending = Buffer.alloc(0);
        return;
      }
      if (!this.file) {
        if (this.pending.length < 30) return;
        const sig = this.pending.readUInt32LE(0);
        if (sig === CENTRAL_HEADER) {
          this.reachedDirectory = true;
          continue;
        }
        if (sig !== LOCAL_HEADER)
          throw new Error(`no zip header at byte ${this.bytes - this.pending.length}`);
        const flags = this.pending.readUInt16LE(6);
        const method = this.pending.readUInt16LE(8);
        const nameLength = this.pending.readUInt16LE(26);
        const extraLength = this.pending.readUInt16LE(28);
        if (this.pending.length < 30 + nameLength + extraLength) return;
        if (method !== 8) throw new Error(`zip method ${method}, not deflate`);
        const name = this.pending.toString('utf8', 30, 30 + nameLength);
        this.start(name, (flags & 8) !== 0, this.pending.readUInt32LE(18));
        this.pending = this.pending.subarray(30 + nameLength + extraLength);
        continue;
      }
      const f = this.file;
      if (!f.descriptor) {
        const take = Math.min(f.remaining, this.pending.length);
        await this.feed(this.pending.subarray(0, take));
        f.remaining -= take;
        this.pending = this.pending.subarray(take);
        if (f.remaining > 0) return;
        await this.finish();
        continue;
      }
      let found = -1;
      for (
        let i = this.pending.indexOf(DESCRIPTOR);
        i !== -1 && i + 16 <= this.pending.length;
        i = this.pending.indexOf(DESCRIPTOR, i + 1)
      ) {
        if (this.pending.readUInt32LE(i + 8) === (f.count.compressedBytes + i) % 2 ** 32) {
          found = i;
          break;
        }
      }
      if (found === -1) {
        // A descriptor that starts in the last 15 bytes is not whole yet: keep them for the next chunk.
        const take = Math.max(0, this.pending.length - 15);
        await this.feed(this.pending.subarray(0, take));
        this.pending = this.pending.subarray(take);
        return;
      }
      await this.feed(this.pending.subarray(0, found));
      const size = this.pending.readUInt32LE(found + 12);
      this.pending = this.pending.subarray(found + 16);
      await this.finish();
      if (size !== f.count.bytes % 2 ** 32)
        this.problems.push(`${f.count.name}: the descriptor says ${size} bytes, ${f.count.bytes} inflated`);
    }
  }

  end(): void {
    if (this.file) this.problems.push(`the zip ends inside ${this.file.count.name}`);
    if (!this.reachedDirectory) this.problems.push('the zip has no central directory');
  }

  private start(name: string, descriptor: boolean, size: number): void {
    const count: ZipFileCount = { name, records: 0, bytes: 0, compressedBytes: 0 };
    this.files.push(count);
    const inflater = createInflateRaw();
    const keep = name.endsWith('.json') ? ([] as Buffer[]) : null;
    let quoted = false;
    inflater.on('data', (data: Buffer) => {
      count.bytes += data.length;
      if (keep) keep.push(data);
      for (let i = 0; i < data.length; i++) {
        const b = data[i];
        if (b === 0x22) quoted = !quoted;
        else if (b === 0x0a && !quoted) count.records++;
      }
    });
    const done = new Promise<void>((resolve, reject) => {
      inflater.once('end', resolve);
      inflater.once('error', reject);
    });
    this.file = { count, inflater, done, descriptor, remaining: size, keep };
  }

  private async feed(data: Buffer): Promise<void> {
    if (data.length === 0) return;
    const f = this.file!;
    f.count.compressedBytes += data.length;
    if (!f.inflater.write(data))
      await new Promise<void>((resolve) => f.inflater.once('drain', () => resolve()));
  }

  private async finish(): Promise<void> {
    const f = this.file!;
    this.file = undefined;
    f.inflater.end();
    await f.done;
    if (f.keep) this.manifest = JSON.parse(Buffer.concat(f.keep).toString('utf8')) as Record<string, unknown>;
  }
}

// ---- HTTP ------------------------------------------------------------------------------------------------------

/** GET with the key, resolving with the response as soon as its head has come (its body is read by the caller). */
function open(origin: string, path: string, key: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, origin), {
      method: 'GET',
      headers: { authorization: `ApiKey ${key}` },
      agent: false,
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

async function expectOk(res: IncomingMessage, what: string): Promise<void> {
  if (res.statusCode === 200) return;
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  throw new Error(`${what}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 600)}`);
}

// ---- the data ------------------------------------------------------------------------------------------------------

const CATEGORIES = [
  'groceries',
  'rent',
  'utilities',
  'transport',
  'dining',
  'health',
  'shopping',
  'travel',
  'entertainment',
  'insurance',
  'education',
  'gifts',
];

/** Ten years of a household's ledger, `count` rows, every value a function of the row's number. */
async function load(client: pg.Client, workspaceId: string, count: number): Promise<number> {
  const started = performance.now();
  await client.query(
    "SET synchronous_commit = off; SET TimeZone = 'UTC'; SET maintenance_work_mem = '256MB'",
  );
  // As pg_dump's restore loads a table: its keys and indexes dropped for the load and built again after it, from
  // their own definitions (a million random entry_id values into a B-tree, and five indexes kept, would take
  // minutes on a shared machine). Its triggers too (the history's statement triggers, the external_id check, the
  // foreign key's check per row): the generated rows name the workspace and satisfy every check.
  const { rows: constraints } = await client.query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = 'public.ledger_entries'::regclass AND contype IN ('p', 'u') ORDER BY conname`,
  );
  const { rows: indexes } = await client.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
     WHERE schemaname = 'public' AND tablename = 'ledger_entries' AND indexname <> ALL ($1::text[])
     ORDER BY indexname`,
    [constraints.map((c) => c.name)],
  );
  const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
  await client.query('ALTER TABLE public.ledger_entries DISABLE TRIGGER ALL');
  try {
    for (const i of indexes) await client.query(`DROP INDEX public.${ident(i.name)}`);
    for (const c of constraints)
      await client.query(`ALTER TABLE public.ledger_entries DROP CONSTRAINT ${ident(c.name)}`);
    const h = '((i::bigint * 2654435761) % 4294967296)';
    for (let from = 1; from <= count; from += CHUNK_ROWS) {
      const to = Math.min(count, from + CHUNK_ROWS - 1);
      const t = performance.now();
      await client.query(
        `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category,
                                           counterparty, note, external_id, inserted_at, updated_at)
         SELECT $1::uuid, r.ts,
                CASE WHEN r.h % 10 < 6 THEN 'checking' WHEN r.h % 10 < 9 THEN 'card' ELSE 'savings' END,
                CASE WHEN r.h % 20 = 0 THEN (150000 + r.h % 300000) / 100.0 ELSE -((r.h % 25000) + 100) / 100.0 END,
                CASE WHEN r.h % 50 = 7 THEN 'EUR' ELSE 'USD' END,
                CASE WHEN r.h % 20 = 0 THEN 'income' ELSE 'spend' END,
                CASE WHEN r.h % 20 = 0 THEN 'salary' ELSE ($4::text[])[1 + (r.h / 7) % 12] END,
                'Shop ' || (r.h / 100) % 400,
                CASE WHEN r.h % 25 = 3 THEN 'receipt kept' END,
                CASE WHEN r.h % 5 <> 0 THEN 'x:' || md5(r.i::text) END,
                r.ts + interval '1 day', r.ts + interval '1 day'
         FROM (SELECT i, ${h} AS h,
                      timestamptz '2016-07-01 00:00:00+00' + (i - 1) * (interval '3650 days' / $5::int) AS ts
               FROM generate_series($2::int, $3::int) AS i) AS r`,
        [workspaceId, from, to, CATEGORIES, count],
      );
      log(`  entries ${from}–${to}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    for (const c of constraints) {
      const t = performance.now();
      await client.query(`ALTER TABLE public.ledger_entries ADD CONSTRAINT ${ident(c.name)} ${c.def}`);
      log(`  constraint ${c.name}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    for (const i of indexes) {
      const t = performance.now();
      await client.query(i.def);
      log(`  index ${i.name}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
  } finally {
    await client.query('ALTER TABLE public.ledger_entries ENABLE TRIGGER ALL');
  }
  // Budgets: three categories a month over the ten years (360 lines); account metadata; the settings.
  await client.query(
    `INSERT INTO public.budget_lines (workspace_id, budget_month, direction, category, currency, planned_value, note)
     SELECT $1::uuid, (date '2016-07-01' + m * interval '1 month')::date, 'spend', c.cat, 'USD', c.base + m, 'plan'
     FROM generate_series(0, 119) AS m,
          (VALUES ('groceries', 400), ('rent', 1500), ('dining', 250)) AS c (cat, base)`,
    [workspaceId],
  );
  await client.query(
    `INSERT INTO public.account_metadata (workspace_id, account_id, display_name, account_type, liquidity)
     VALUES ($1, 'checking', 'Checking', 'checking', 'high'), ($1, 'card', 'Credit card', 'credit_card', 'high'),
            ($1, 'savings', 'Savings', 'savings', 'medium')`,
    [workspaceId],
  );
  await client.query(
    `UPDATE public.workspace_settings SET timezone = 'America/New_York', first_day_of_week = 7
     WHERE workspace_id = $1`,
    [workspaceId],
  );
  for (const t of ['public.ledger_entries', 'public.budget_lines', 'public.account_metadata'])
    await client.query(`VACUUM (ANALYZE) ${t}`);
  return round((performance.now() - started) / 1000, 1);
}

/** The workspace's rows per relation of the export, from the database. */
async function databaseCounts(client: pg.Client, workspaceId: string): Promise<Record<string, number>> {
  const { rows } = await client.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM public.workspace_settings WHERE workspace_id = $1) AS workspace_settings,
            (SELECT count(*) FROM public.account_metadata WHERE workspace_id = $1) AS account_metadata,
            (SELECT count(*) FROM public.budget_lines WHERE workspace_id = $1) AS budget_lines,
            (SELECT count(*) FROM public.ledger_entries WHERE workspace_id = $1) AS ledger_entries,
            (SELECT count(*) FROM expense_internal.changes WHERE workspace_id = $1) AS changes,
            (SELECT count(*) FROM expense_internal.change_rows r JOIN expense_internal.changes c USING (change_id)
              WHERE c.workspace_id = $1) AS change_rows`,
    [workspaceId],
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

// ---- the run -------------------------------------------------------------------------------------------------------

interface Read {
  name: string;
  bytes: number;
  seconds: number;
  baselineMiB: number;
  peakMiB: number;
  growthMiB: number;
  /** VmHWM as the read began: the process's peak so far. */
  hwmBeforeMiB: number;
  hwmAfterMiB: number;
  /** Rows per relation as counted in the stream. */
  rows: Record<string, number>;
  problems: string[];
}

const machine = await machineInfo();
const build = defaultBuild();
const gauge: { at: string; uptime: string }[] = [{ at: 'start', uptime: uptime() }];
log(`export memory bench: ${ENTRIES} entries, the ${build} server; ${gauge[0]!.uptime}`);
const database = await freshPostgres({ prefix: 'expense_export_bench' });
let failed = false;
try {
  const seeding = await openForSeeding({ databaseUrl: database.url });
  const [key] = await seed(seeding, { users: 1 }).finally(() => seeding.close());
  const workspaceId = key!.workspaceIds[0]!;
  const client = new pg.Client({ connectionString: database.url });
  // The database is dropped WITH (FORCE) at the end, whatever happened: not this client's failure.
  client.on('error', () => {});
  await client.connect();
  const closeClient = (() => {
    let closed: Promise<void> | undefined;
    return () => (closed ??= client.end());
  })();
  let loadSeconds = 0;
  let expected: Record<string, number> = {};
  try {
    log(`loading ${ENTRIES} entries…`);
    loadSeconds = await load(client, workspaceId, ENTRIES);
    log(`loaded in ${loadSeconds} s`);
  } catch (error) {
    await closeClient();
    throw error;
  }
  gauge.push({ at: 'loaded', uptime: uptime() });

  const server = await startServerProcess({ env: { DATABASE_URL: database.url } });
  const sampler = new MemorySampler(server.pid);
  const reads: Read[] = [];
  try {
    // A little history, through the API: two changes with their row images.
    for (const sql of [
      "UPDATE budget_lines SET note = 'reviewed' WHERE budget_month >= DATE '2025-07-01'",
      "INSERT INTO account_metadata (account_id, display_name, account_type, liquidity) VALUES ('cash', 'Cash', 'cash', 'high')",
    ]) {
      const res = await callRoute(server.origin, ROUTE_PATHS.sqlExecute, { key: key!.apiKey, body: { sql } });
      if (res.status !== 200) throw new Error(`history write: ${res.status} ${res.text.slice(0, 400)}`);
    }
    expected = await databaseCounts(client, workspaceId);
    await closeClient();
    log(`expected rows: ${JSON.stringify(expected)}`);
    const path = apiPath(ROUTE_PATHS.exportWorkspace, { workspaceId });

    /** Waits a second for the baseline, then runs the read with the sampler's window around it. */
    const measure = async (
      name: string,
      read: () => Promise<{ bytes: number; rows: Record<string, number>; problems: string[] }>,
    ): Promise<Read> => {
      const before = sampler.now();
      await sleep(1000);
      const baseline = sampler.between(before, sampler.now());
      const hwmBeforeMiB = sampler.sample()?.hwmMiB ?? Number.NaN;
      const from = sampler.now();
      const started = performance.now();
      const out = await read();
      const seconds = (performance.now() - started) / 1000;
      const last = sampler.sample();
      const during = sampler.between(from, sampler.now());
      const baselineMiB = baseline.reduce((a, s) => a + s.rssMiB, 0) / Math.max(1, baseline.length);
      const peakMiB = Math.max(...during.map((s) => s.rssMiB));
      const r: Read = {
        name,
        ...out,
        seconds: round(seconds, 1),
        baselineMiB: round(baselineMiB),
        peakMiB: round(peakMiB),
        growthMiB: round(peakMiB - baselineMiB),
        hwmBeforeMiB: round(hwmBeforeMiB),
        hwmAfterMiB: round(last?.hwmMiB ?? Number.NaN),
      };
      log(
        `${name}: ${mib(r.bytes)} MiB in ${r.seconds} s; RSS ${r.baselineMiB} → peak ${r.peakMiB} MiB (+${r.growthMiB}); VmHWM ${r.hwmAfterMiB} MiB; ${uptime()}`,
      );
      return r;
    };

    reads.push(
      await measure('json', async () => {
        const res = await open(server.origin, path, key!.apiKey);
        await expectOk(res, 'the JSON export');
        const counter = new JsonCounter();
        for await (const chunk of res) counter.push(chunk as Buffer);
        const problems = [...counter.problems];
        if (!counter.closed) problems.push('the document is not closed');
        if (!counter.end) problems.push('no `end`');
        for (const [name, n] of Object.entries(expected)) {
          if (counter.rows[name] !== n)
            problems.push(`${name}: ${counter.rows[name]} rows, the database has ${n}`);
          if (counter.end && counter.end.counts[name] !== n)
            problems.push(`end.counts.${name} is ${counter.end.counts[name]}, the database has ${n}`);
        }
        if (counter.parsedRows === 0) problems.push('no ledger row was parsed');
        return { bytes: counter.bytes, rows: counter.rows, problems };
      }),
    );

    reads.push(
      await measure('csv', async () => {
        const res = await open(server.origin, `${path}?format=csv`, key!.apiKey);
        await expectOk(res, 'the CSV export');
        const zip = new ZipCounter();
        for await (const chunk of res) await zip.push(chunk as Buffer);
        zip.end();
        const problems = [...zip.problems];
        const rows: Record<string, number> = {};
        for (const f of zip.files) if (f.name.endsWith('.csv')) rows[f.name.slice(0, -4)] = f.records - 1;
        const manifestFiles = (zip.manifest?.files ?? []) as { relation: string; rows: number }[];
        if (!zip.manifest) problems.push('no manifest.json');
        for (const [name, n] of Object.entries(expected)) {
          if (rows[name] !== n) problems.push(`${name}.csv: ${rows[name]} records, the database has ${n}`);
          const listed = manifestFiles.find((f) => f.relation === name)?.rows;
          if (listed !== n)
            problems.push(`the manifest says ${listed} rows of ${name}, the database has ${n}`);
        }
        const inflated = zip.files.reduce((a, f) => a + f.bytes, 0);
        log(`  csv: ${mib(inflated)} MiB of CSV in ${zip.files.length} files`);
        return { bytes: zip.bytes, rows, problems };
      }),
    );

    reads.push(
      await measure(`slow (${mib(SLOW_RATE)} MiB/s for ${SLOW_SECONDS} s, then dropped)`, async () => {
        const res = await open(server.origin, path, key!.apiKey);
        await expectOk(res, 'the slow JSON export');
        const started = performance.now();
        let bytes = 0;
        for await (const chunk of res) {
          bytes += (chunk as Buffer).length;
          const ahead = (bytes / SLOW_RATE) * 1000 - (performance.now() - started);
          if (ahead > 0) await sleep(ahead);
          if (performance.now() - started >= SLOW_SECONDS * 1000) break;
        }
        res.destroy();
        // The server gives the place back and answers the next request.
        const after = await callRoute(server.origin, ROUTE_PATHS.me, { key: key!.apiKey });
        const problems = after.status === 200 ? [] : [`GET /v1/me after the dropped export: ${after.status}`];
        return { bytes, rows: {}, problems };
      }),
    );
  } finally {
    sampler.stop();
    await closeClient();
    await server.stop();
  }
  gauge.push({ at: 'end', uptime: uptime() });

  const startup = sampler.samples[0];
  const hwm = Math.max(...sampler.samples.map((s) => s.hwmMiB));
  const peak = Math.max(...reads.map((r) => r.peakMiB));
  const met = hwm < GOAL_MIB;
  const problems = reads.flatMap((r) => r.problems.map((p) => `${r.name}: ${p}`));
  failed = !met || problems.length > 0;
  const n = (x: number) => x.toLocaleString('en-US');
  const md = [
    `${n(expected.ledger_entries!)} ledger entries of one workspace (ten years), ${n(expected.budget_lines!)} budget lines, ${expected.account_metadata} accounts' metadata, its settings and ${expected.changes} changes with ${expected.change_rows} row images; loaded in SQL in ${loadSeconds} s. The ${build === 'dist' ? 'built' : 'source (tsx)'} server in a child process on ${machine.postgres}, Node ${machine.node}, ${machine.nproc} cores; RSS and VmHWM of /proc/<pid>/status every ${SAMPLE_MS} ms; the baseline of a read is the mean RSS over the second before it.`,
    '',
    `Load (uptime): ${gauge.map((g) => `${g.at}: ${g.uptime.replace(/^.*load average: /, '')}`).join('; ')}.`,
    '',
    '| read | bytes sent | time | rows counted (ledger) | RSS before | peak RSS | growth | VmHWM before → after |',
    '|---|---|---|---|---|---|---|---|',
    ...reads.map(
      (r) =>
        `| ${r.name} | ${mib(r.bytes)} MiB | ${r.seconds} s | ${r.rows.ledger_entries === undefined ? '–' : n(r.rows.ledger_entries)} | ${r.baselineMiB} MiB | ${r.peakMiB} MiB | ${r.growthMiB} MiB | ${r.hwmBeforeMiB} → ${r.hwmAfterMiB} MiB |`,
    ),
    '',
    `Server at start: RSS ${round(startup?.rssMiB ?? Number.NaN)} MiB. Peak of the process over the whole run (VmHWM): **${round(hwm)} MiB** (${reads[0]?.hwmBeforeMiB} MiB already as the first export began: start-up and the first SQL requests), goal < 200 MB (${round(GOAL_MIB)} MiB): **${met ? 'met' : 'not met'}**. Largest sampled RSS during a read: ${round(peak)} MiB.`,
    ...(problems.length ? ['', `Problems: ${problems.join('; ')}`] : []),
  ];
  process.stdout.write(`${md.join('\n')}\n`);
  log(
    `wrote ${writeResult('export-memory', {
      machine,
      build,
      command: `node bench/export-memory.ts --entries ${ENTRIES} --slow-seconds ${SLOW_SECONDS} --slow-rate ${SLOW_RATE}`,
      expected,
      loadSeconds,
      gauge,
      goalMiB: round(GOAL_MIB),
      hwmMiB: round(hwm),
      met,
      reads,
      samples: sampler.samples.map((s) => ({
        t: round(s.t, 1),
        rssMiB: round(s.rssMiB),
        hwmMiB: round(s.hwmMiB),
      })),
    })}`,
  );
  if (problems.length) log(`problems: ${problems.join('; ')}`);
} finally {
  if (KEEP) log(`kept: ${database.url}`);
  else await database.drop();
}
process.exit(failed ? 1 : 0);
