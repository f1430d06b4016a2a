import type { FxConfig } from '../../platform/config/fx.js';
import type { Database } from '../../platform/storage/database.js';
import { type RebuildResult, rebuildFxDaily } from './daily.js';
import { addDays, utcToday } from './dates.js';
import { type DownloadOptions, download } from './download.js';
import { type ImportSummary, importFxText } from './import.js';
import type { FxLogger } from './logger.js';

/** The ECB's first reference rates. */
const ECB_FIRST_DAY = '1999-01-04';
/** The 90-day file covers about 64 market days; beyond this gap the full history is fetched instead. */
const NINETY_DAY_REACH = 85;

export interface SyncOptions {
  sourceUrl: string;
  windowDays: number;
  /** Default: the current UTC date. */
  today?: string;
  signal?: AbortSignal;
  download?: Partial<Omit<DownloadOptions, 'signal' | 'onRetry'>>;
}

export interface SyncResult {
  /** False when the file could not be fetched or was refused; the daily table is still extended to today. */
  ok: boolean;
  url: string;
  reason?: string;
  imported?: ImportSummary;
  daily: RebuildResult | null;
}

/**
 * Which file to fetch: for a folder laid out like the ECB's, the full history (eurofxref-hist.zip) when the
 * stored rates do not reach back to the window's start or stop more than 85 days ago, else the 90-day file.
 */
export function fileToFetch(
  sourceUrl: string,
  stored: { first: string | null; last: string | null },
  windowDays: number,
  today: string,
): string {
  if (!sourceUrl.endsWith('/')) return sourceUrl;
  const windowStart = [ECB_FIRST_DAY, addDays(today, -windowDays)].sort()[1]!;
  const needHistory =
    stored.first === null ||
    stored.last === null ||
    stored.first > windowStart ||
    stored.last < addDays(today, -NINETY_DAY_REACH);
  return new URL(needHistory ? 'eurofxref-hist.zip' : 'eurofxref-hist-90d.xml', sourceUrl).href;
}

/**
 * Downloads the ECB rates and imports them (one transaction, as the FX role). Never throws for network or
 * file problems: they are logged as warnings and reported in the result.
 */
export async function syncFx(db: Database, logger: FxLogger, options: SyncOptions): Promise<SyncResult> {
  const today = options.today ?? utcToday();
  const { rows } = await db.query<{ first: string | null; last: string | null }>(
    `SELECT min(rate_date)::text AS first, max(rate_date)::text AS last FROM public.fx_rates_raw
     WHERE base_currency = 'EUR' AND source = 'ecb'`,
  );
  const url = fileToFetch(
    options.sourceUrl,
    rows[0] ?? { first: null, last: null },
    options.windowDays,
    today,
  );
  const fetched = await download(url, {
    attempts: 4,
    backoffMs: 2_000,
    timeoutMs: 60_000,
    ...options.download,
    signal: options.signal,
    onRetry: (info) => logger.warn({ fx: 'sync', ...info }, 'fx download failed; retrying'),
  });
  const rebuildOptions = { windowDays: options.windowDays, today };
  if (!fetched.ok) {
    logger.warn({ fx: 'sync', url, reason: fetched.reason }, 'fx sync could not download the rates');
    return { ok: false, url, reason: fetched.reason, daily: await extend(db, logger, rebuildOptions) };
  }
  const result = await importFxText(db, fetched.text, rebuildOptions);
  if (!result.ok) {
    const reason = `line ${result.error.line}: ${result.error.reason}`;
    logger.warn({ fx: 'sync', url, reason }, 'fx sync refused the downloaded file');
    return { ok: false, url, reason, daily: await extend(db, logger, rebuildOptions) };
  }
  const { daily, ...summary } = result.value;
  logger.info({ fx: 'sync', url, ...summary, daily }, 'fx rates synced');
  return { ok: true, url, imported: result.value, daily };
}

/** Without new rates the table still has to reach today (weekends carried forward). */
async function extend(db: Database, logger: FxLogger, options: { windowDays: number; today: string }) {
  const daily = await rebuildFxDaily(db, options);
  logger.info({ fx: 'rebuild', daily }, 'fx daily table extended');
  return daily;
}

/** Daily times (UTC): the sync after the ECB publishes (about 16:00 CET), and a new day's rows after midnight. */
const SYNC_AT = { hour: 15, minute: 30 };
const EXTEND_AT = { hour: 0, minute: 5 };

export type FxRunKind = 'sync' | 'extend';

/** The next scheduled run after `now`: `sync` at 15:30 UTC (when downloading), `extend` at 00:05 UTC. */
export function nextRun(now: Date, download: boolean): { kind: FxRunKind; delayMs: number } {
  const slots: Array<[FxRunKind, { hour: number; minute: number }]> = [['extend', EXTEND_AT]];
  if (download) slots.push(['sync', SYNC_AT]);
  let best: { kind: FxRunKind; delayMs: number } | null = null;
  for (const [kind, { hour, minute }] of slots) {
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour, minute));
    if (at.getTime() - now.getTime() < 60_000) at.setUTCDate(at.getUTCDate() + 1);
    const delayMs = at.getTime() - now.getTime();
    if (!best || delayMs < best.delayMs) best = { kind, delayMs };
  }
  return best!;
}

export interface FxSchedulerOptions {
  db: Database;
  logger: FxLogger;
  /** With `fxSync: false` nothing is downloaded: the daily table is only extended to each new day. */
  config: Pick<FxConfig, 'fxSourceUrl' | 'fxDays'> & { fxSync?: boolean };
  /** Called after each run, failed or not (the rates may have changed). */
  onRun?: () => void;
}

export interface FxScheduler {
  /** Cancels the next run and any download in flight; resolves when a running job has finished. */
  stop(): Promise<void>;
}

/**
 * Runs in the background, never delaying start-up or requests: a sync on start (or, with `fxSync: false`, an
 * extension of the daily table to today), then the sync daily at 15:30 UTC and the extension at 00:05 UTC, so
 * entries dated today convert from midnight on. A failing run is logged and the schedule goes on.
 */
export function startFxScheduler({ db, logger, config, onRun }: FxSchedulerOptions): FxScheduler {
  const download = config.fxSync !== false;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const job = (kind: FxRunKind): Promise<unknown> =>
    kind === 'sync'
      ? syncFx(db, logger, { sourceUrl: config.fxSourceUrl, windowDays: config.fxDays, signal: abort.signal })
      : extend(db, logger, { windowDays: config.fxDays, today: utcToday() });
  const run = (kind: FxRunKind) => {
    running = job(kind)
      .then(() => undefined)
      .catch((error: unknown) => {
        if (!abort.signal.aborted) logger.warn({ fx: kind, err: error }, `fx ${kind} failed`);
      })
      .finally(() => {
        onRun?.();
        schedule();
      });
  };
  const schedule = () => {
    if (abort.signal.aborted) return;
    const next = nextRun(new Date(), download);
    timer = setTimeout(() => run(next.kind), next.delayMs);
    timer.unref();
    const at = new Date(Date.now() + next.delayMs).toISOString();
    logger.info({ fx: 'schedule', next: next.kind, at }, 'fx job scheduled');
  };

  timer = setTimeout(() => run(download ? 'sync' : 'extend'), 0);
  timer.unref();
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
