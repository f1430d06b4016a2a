import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerFxCommands } from '../cli.js';
import { download } from '../download.js';
import type { FxLogger } from '../logger.js';
import { fileToFetch, nextRun, startFxScheduler, syncFx } from '../sync.js';
import { openPglite, type TestDatabase } from './engines.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const CSV = fixture('eurofxref-hist-excerpt.csv');

/** A real HTTP server standing in for the ECB: a folder of files, and paths that fail on purpose. */
function ecbServer() {
  const hits: string[] = [];
  const files: Record<string, Buffer | Uint8Array> = {
    '/ecb/eurofxref-hist.zip': zipSync({ 'eurofxref-hist.csv': new Uint8Array(CSV) }),
    '/ecb/eurofxref-hist-90d.xml': fixture('eurofxref-hist-90d-excerpt.xml'),
    '/bad/eurofxref-hist.zip': zipSync({ 'eurofxref-hist.csv': strToU8('Date,USD,\n2025-01-03,abc,\n') }),
  };
  let flaky = 2;
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/flaky/eurofxref-hist.zip' && flaky-- > 0) {
      res.writeHead(503).end();
      return;
    }
    const body = files[req.url?.replace('/flaky/', '/ecb/') ?? ''];
    if (req.url?.startsWith('/down/') || !body) {
      res.writeHead(req.url?.startsWith('/down/') ? 500 : 404).end();
      return;
    }
    res.writeHead(200).end(body);
  });
  return { server, hits };
}

const logs: Array<{ level: string; msg?: string; obj: object }> = [];
const logger: FxLogger = {
  info: (obj, msg) => logs.push({ level: 'info', msg, obj }),
  warn: (obj, msg) => logs.push({ level: 'warn', msg, obj }),
};
/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
const fast = { attempts: 3, backoffMs: 5, timeoutMs: 5_000 };

describe('fx sync', () => {
  let t: TestDatabase;
  let http: ReturnType<typeof ecbServer>;
  let base: string;
  beforeAll(async () => {
    t = await openPglite();
    http = ecbServer();
    await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => (http.server as Server).close(resolve));
    await t?.dispose();
  });
  beforeEach(async () => {
    logs.length = 0;
    http.hits.length = 0;
    await t.db.query('DELETE FROM fx_rates_daily');
    await t.db.query('DELETE FROM fx_rates_raw');
  });
  const count = async () =>
    (await t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM fx_rates_raw')).rows[0]!.n;

  it('fetches the full history when the window is not covered, else the 90-day file', () => {
    const ecb = 'https://www.ecb.europa.eu/stats/eurofxref/';
    const none = { first: null, last: null };
    expect(fileToFetch(ecb, none, 730, '2025-01-06')).toBe(`${ecb}eurofxref-hist.zip`);
    expect(fileToFetch(ecb, { first: '1999-01-04', last: '2025-01-03' }, 730, '2025-01-06')).toBe(
      `${ecb}eurofxref-hist-90d.xml`,
    );
    expect(fileToFetch(ecb, { first: '1999-01-04', last: '2024-09-01' }, 730, '2025-01-06')).toBe(
      `${ecb}eurofxref-hist.zip`,
    );
    expect(fileToFetch('https://mirror.example/rates.csv', none, 730, '2025-01-06')).toBe(
      'https://mirror.example/rates.csv',
    );
  });

  it('syncs daily at 15:30 UTC, after the ECB publishes, and extends the table at 00:05 UTC', () => {
    const hours = (h: number) => h * 3_600_000;
    expect(nextRun(new Date('2025-01-06T10:00:00Z'), true)).toEqual({ kind: 'sync', delayMs: hours(5.5) });
    expect(nextRun(new Date('2025-01-06T15:30:00Z'), true)).toEqual({
      kind: 'extend',
      delayMs: hours(8.5) + 300_000,
    });
    expect(nextRun(new Date('2025-01-06T10:00:00Z'), false)).toEqual({
      kind: 'extend',
      delayMs: hours(14) + 300_000,
    });
  });

  it('downloads the zipped history, then the 90-day file, importing each', async () => {
    const first = await syncFx(t.db, logger, {
      sourceUrl: `${base}/ecb/`,
      windowDays: 10,
      today: '2025-01-06',
      download: fast,
    });
    expect(first).toMatchObject({
      ok: true,
      url: `${base}/ecb/eurofxref-hist.zip`,
      imported: { inserted: 60 },
    });
    const second = await syncFx(t.db, logger, {
      sourceUrl: `${base}/ecb/`,
      windowDays: 10,
      today: '2025-01-06',
      download: fast,
    });
    expect(second).toMatchObject({
      ok: true,
      url: `${base}/ecb/eurofxref-hist-90d.xml`,
      imported: { inserted: 0, unchanged: 60 },
    });
    expect(logs.filter((l) => l.level === 'info' && l.msg === 'fx rates synced')).toHaveLength(2);
  });

  it('retries with backoff on 5xx', async () => {
    const result = await syncFx(t.db, logger, {
      sourceUrl: `${base}/flaky/`,
      windowDays: 10,
      today: '2025-01-06',
      download: fast,
    });
    expect(result.ok).toBe(true);
    expect(http.hits.filter((h) => h.startsWith('/flaky/'))).toHaveLength(3);
    expect(logs.filter((l) => l.msg === 'fx download failed; retrying')).toHaveLength(2);
  });

  it('does not retry a status that will not change (404), nor after the caller stopped', async () => {
    const retries: number[] = [];
    const options = { ...fast, onRetry: ({ attempt }: { attempt: number }) => retries.push(attempt) };
    expect(await download(`${base}/missing/eurofxref-hist.zip`, options)).toEqual({
      ok: false,
      reason: 'HTTP 404',
    });
    expect(http.hits).toEqual(['/missing/eurofxref-hist.zip']);
    const stop = new AbortController();
    const stopped = download(`${base}/down/eurofxref-hist.zip`, {
      ...options,
      backoffMs: 60_000,
      signal: stop.signal,
      onRetry: () => stop.abort(),
    });
    expect(await stopped).toEqual({ ok: false, reason: 'stopped' });
    expect(http.hits.filter((h) => h.startsWith('/down/'))).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('turns a network failure into a warning, keeps the stored rates and still extends the table', async () => {
    await syncFx(t.db, logger, {
      sourceUrl: `${base}/ecb/`,
      windowDays: 10,
      today: '2025-01-06',
      download: fast,
    });
    logs.length = 0;
    const down = await syncFx(t.db, logger, {
      sourceUrl: `${base}/down/`,
      windowDays: 10,
      today: '2025-01-07',
      download: fast,
    });
    expect(down).toMatchObject({ ok: false, reason: 'HTTP 500', daily: { windowEnd: '2025-01-07' } });
    expect(http.hits.filter((h) => h.startsWith('/down/'))).toHaveLength(3);
    const closed = await syncFx(t.db, logger, {
      sourceUrl: `http://127.0.0.1:${await closedPort()}/eurofxref-hist-90d.xml`,
      windowDays: 10,
      today: '2025-01-07',
      download: fast,
    });
    expect(closed).toMatchObject({ ok: false, reason: 'ECONNREFUSED' });
    expect(
      logs.filter((l) => l.level === 'warn' && l.msg === 'fx sync could not download the rates'),
    ).toHaveLength(2);
    expect(await count()).toBe('60');
  });

  it('refuses a malformed download and writes nothing', async () => {
    const result = await syncFx(t.db, logger, {
      sourceUrl: `${base}/bad/`,
      windowDays: 10,
      today: '2025-01-06',
      download: fast,
    });
    expect(result).toMatchObject({
      ok: false,
      reason: 'line 2: the USD rate "abc" is not a positive decimal number',
    });
    expect(await count()).toBe('0');
  });

  it('schedules a sync on start in the background and stops cleanly', async () => {
    const scheduler = startFxScheduler({
      db: t.db,
      logger,
      config: { fxSourceUrl: `${base}/ecb/`, fxDays: 730 },
    });
    for (let i = 0; i < 200 && !logs.some((l) => l.msg === 'fx job scheduled'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await scheduler.stop();
    expect(await count()).toBe('60');
    expect(logs.some((l) => l.msg === 'fx rates synced')).toBe(true);
  });

  it('without downloading, extends the daily table on start', async () => {
    await syncFx(t.db, logger, {
      sourceUrl: `${base}/ecb/`,
      windowDays: 10,
      today: '2025-01-06',
      download: fast,
    });
    http.hits.length = 0;
    logs.length = 0;
    const scheduler = startFxScheduler({
      db: t.db,
      logger,
      config: { fxSourceUrl: `${base}/ecb/`, fxDays: 730, fxSync: false },
    });
    for (let i = 0; i < 200 && !logs.some((l) => l.msg === 'fx job scheduled'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await scheduler.stop();
    expect(http.hits).toEqual([]);
    const { rows } = await t.db.query<{ last: string }>(
      'SELECT max(calendar_date)::text AS last FROM fx_rates_daily',
    );
    expect(rows[0]!.last).toBe(new Date().toISOString().slice(0, 10));
  });

  it('fx import on the command line: a summary, or the file line and reason with exit code 1', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const program = new Command().exitOverride();
    registerFxCommands(program, {
      openDatabase: async () => ({ ...t.db, close: async () => undefined }),
      config: () => ({ fxSourceUrl: `${base}/ecb/`, fxDays: 730, fxSync: false }),
      out: (s) => out.push(s),
      err: (s) => err.push(s),
    });
    const fixturePath = new URL('./fixtures/eurofxref-hist-excerpt.csv', import.meta.url).pathname;
    await program.parseAsync(['fx', 'import', fixturePath], { from: 'user' });
    expect(out.join('')).toMatch(/^60 rates on 12 market days \(2024-12-16\.\.2025-01-03\): 60 new/);
    const bad = join(mkdtempSync(join(tmpdir(), 'fx-')), 'bad.csv');
    writeFileSync(bad, 'Date,USD,\n2025-01-06,1.0345,\n2025-01-03,abc,\n');
    const saved = process.exitCode;
    try {
      await program.parseAsync(['fx', 'import', bad], { from: 'user' });
      expect(process.exitCode).toBe(1);
      expect(err.join('')).toBe(
        `expense-server: ${bad}:3: the USD rate "abc" is not a positive decimal number (nothing was imported)\n`,
      );
      expect(await count()).toBe('60');
      err.length = 0;
      await program.parseAsync(['fx', 'sync', '--source-url', 'ftp://example.test/'], { from: 'user' });
      expect(err.join('')).toBe('expense-server: fx failed: expected an http(s) URL\n');
    } finally {
      process.exitCode = saved;
    }
  });
});
