import { addDays, daysBetween } from '../../platform/clock/clock.js';
import type { Queryable } from '../../platform/storage/database.js';

/** The ECB days held in fx_rates_raw: the first and the newest, null when there are none. */
export interface FxCoverageRange {
  first: string | null;
  newest: string | null;
}

/** A newest rate older than this many days (relative to today) is called stale. */
export const FX_STALE_AFTER_DAYS = 7;

/** How to get fresh rates where the server does not download them itself. */
export const FX_FRESH_RATES =
  'Exchange rates are as fresh as the last sync: the operator runs `expense-server fx sync` (or starts the server with `--fx-sync`, EXPENSE_FX_SYNC=1, to sync daily); an agent cannot load rates through SQL.';

/** Days the newest rate lies before `today`, when that is more than FX_STALE_AFTER_DAYS (else undefined). */
export function staleDays(range: FxCoverageRange, today: string): number | undefined {
  if (range.newest === null) return undefined;
  const age = daysBetween(range.newest, today);
  return age > FX_STALE_AFTER_DAYS ? age : undefined;
}

/** /schema's hints on the coverage of the held rates (both FX relations). */
export function coverageHints(range: FxCoverageRange, today: string): string[] {
  if (range.first === null || range.newest === null)
    return [`No ECB rates are held yet, so nothing can be converted. ${FX_FRESH_RATES}`];
  const out = [`ECB rates held: from ${range.first} to ${range.newest} (market days).`];
  const age = staleDays(range, today);
  if (age !== undefined) {
    out.push(
      `Warning: the newest rate is ${age} days old (today is ${today}); fx_rates_daily carries the ${range.newest} rate forward to every later day, so conversions after ${addDays(range.newest, 1)} use it. Tell the user. ${FX_FRESH_RATES}`,
    );
  }
  return out;
}

/** The instruction for an SQL result that read fx_rates_daily while the newest rate is stale (or none is held). */
export function staleRatesInstruction(range: FxCoverageRange, today: string): string | undefined {
  if (range.newest === null)
    return `fx_rates_daily is empty: no ECB rates are held, so nothing converts. ${FX_FRESH_RATES}`;
  const age = staleDays(range, today);
  if (age === undefined || range.newest === null) return undefined;
  return `fx_rates_daily holds no ECB rate after ${range.newest} (${age} days before today, ${today}): rates for later dates are that day's rates carried forward (see source_rate_date), so tell the user that such conversions use old rates. ${FX_FRESH_RATES}`;
}

/**
 * The first and newest ECB dates in fx_rates_raw, kept in memory: read at most once per `ttlMs` (another
 * process's worker may import meanwhile) and at once after this process's worker ran (`invalidate`). Callers on
 * a hot path use `peek`, which never waits once a value is known and refreshes in the background.
 */
export class FxCoverage {
  #value: FxCoverageRange | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<FxCoverageRange> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The range, read again when older than the TTL. */
  async get(): Promise<FxCoverageRange> {
    if (this.#value !== undefined && this.now() - this.#readAt < this.ttlMs) return this.#value;
    return this.#load();
  }

  /** The known range at once (refreshing it in the background when old); waits only for the first read. */
  async peek(): Promise<FxCoverageRange> {
    if (this.#value === undefined) return this.#load();
    if (this.now() - this.#readAt >= this.ttlMs) this.#load().catch(() => undefined);
    return this.#value;
  }

  /** Forget the kept range (the worker changed the rates). */
  invalidate(): void {
    this.#readAt = Number.NEGATIVE_INFINITY;
  }

  #load(): Promise<FxCoverageRange> {
    this.#loading ??= this.db
      .query<{ first: string | null; newest: string | null }>(
        `SELECT min(rate_date)::text AS first, max(rate_date)::text AS newest FROM public.fx_rates_raw
         WHERE base_currency = 'EUR' AND source = 'ecb'`,
      )
      .then(({ rows }) => {
        this.#value = { first: rows[0]?.first ?? null, newest: rows[0]?.newest ?? null };
        this.#readAt = this.now();
        return this.#value;
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}

/** /me's instruction when the held rates are stale (none otherwise; a failed read says nothing). */
export async function fxInstructions(coverage: FxCoverage, today: string): Promise<string[]> {
  const range = await coverage.peek().catch(() => undefined);
  if (!range) return [];
  if (range.newest === null) return [`No exchange rates are held yet. ${FX_FRESH_RATES}`];
  const age = staleDays(range, today);
  return age === undefined
    ? []
    : [
        `The newest exchange rate is from ${range.newest} (${age} days old): conversions after it use that rate. ${FX_FRESH_RATES}`,
      ];
}
