import { readFileSync } from 'node:fs';
import type { SqlSession } from '@expense/sql-guard';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rebuildFxDaily } from '../daily.js';
import { importFxText } from '../import.js';
import { seedFxIfEmpty } from '../seed.js';
import { ENGINES, type TestDatabase } from './engines.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const CSV = fixture('eurofxref-hist-excerpt.csv');
const XML_90D = fixture('eurofxref-hist-90d-excerpt.xml');
/** Monday after the excerpt's last market day (Friday 3 Jan 2025): a weekend to carry over. */
const TODAY = '2025-01-06';
const opts = { windowDays: 730, today: TODAY };

describe.each(ENGINES)('FX worker on %s', (_engine, open) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await open();
  });
  afterAll(() => t?.dispose());
  beforeEach(async () => {
    await t.db.query('DELETE FROM fx_rates_daily');
    await t.db.query('DELETE FROM fx_rates_raw');
  });

  const rate = async (base: string, quote: string, day: string) => {
    const { rows } = await t.db.query<{ rate: string; source: string }>(
      `SELECT rate::text AS rate, source_rate_date::text AS source FROM fx_rates_daily
       WHERE base_currency = $1 AND quote_currency = $2 AND calendar_date = $3`,
      [base, quote, day],
    );
    return rows[0] ?? null;
  };
  const exact = async (expression: string) =>
    (await t.db.query<{ v: string }>(`SELECT (${expression})::text AS v`)).rows[0]!.v;
  const snapshot = async () =>
    (
      await t.db.query<{ n: string; digest: string }>(
        `SELECT count(*)::text AS n, md5(string_agg(base_currency || quote_currency || calendar_date || ':' ||
           rate::text || ':' || source_rate_date, ',' ORDER BY base_currency, quote_currency, calendar_date)) AS digest
         FROM fx_rates_daily`,
      )
    ).rows[0]!;

  it('fills every day and every ordered pair, carrying weekends and holidays forward', async () => {
    const result = await importFxText(t.db, CSV, opts);
    if (!result.ok) throw new Error(result.error.reason);
    expect(result.value).toMatchObject({ layout: 'csv', days: 12, rates: 60, inserted: 60, updated: 0 });
    // 2024-12-16..2025-01-06 = 22 days; EUR + 5 currencies (RUB is all N/A) = 36 ordered pairs.
    expect(result.value.daily).toMatchObject({
      mode: 'full',
      windowStart: '2024-12-16',
      windowEnd: TODAY,
      currencies: ['CHF', 'EUR', 'GBP', 'JPY', 'SEK', 'USD'],
      rowsInserted: 22 * 36,
      rowsTotal: 22 * 36,
    });
    expect(await rate('EUR', 'USD', '2024-12-24')).toEqual({ rate: '1.0405', source: '2024-12-24' });
    // Christmas and St Stephen's Day (TARGET holidays), then a weekend, New Year's Day, a trailing weekend.
    for (const day of ['2024-12-25', '2024-12-26']) {
      expect(await rate('EUR', 'USD', day)).toEqual({ rate: '1.0405', source: '2024-12-24' });
    }
    expect(await rate('EUR', 'USD', '2024-12-28')).toEqual({ rate: '1.0427', source: '2024-12-27' });
    expect(await rate('EUR', 'JPY', '2025-01-01')).toEqual({ rate: '163.06', source: '2024-12-31' });
    for (const day of ['2025-01-04', '2025-01-05', '2025-01-06']) {
      expect(await rate('EUR', 'GBP', day)).toEqual({ rate: '0.8292', source: '2025-01-03' });
    }
    expect(await rate('EUR', 'RUB', '2024-12-31')).toBeNull();
    expect(await rate('EUR', 'USD', '2024-12-15')).toBeNull();
    const { rows } = await t.db.query<{ gaps: string }>(
      `SELECT count(*)::text AS gaps FROM (
         SELECT calendar_date FROM fx_rates_daily GROUP BY calendar_date HAVING count(*) <> 36) g`,
    );
    expect(rows[0]!.gaps).toBe('0');
  });

  it('computes inverse, cross and identity pairs exactly in numeric', async () => {
    await importFxText(t.db, CSV, opts);
    const usdGbp = await rate('USD', 'GBP', '2025-01-01');
    expect(usdGbp).toEqual({ rate: await exact('0.82918::numeric / 1.0389::numeric'), source: '2024-12-31' });
    expect(usdGbp!.rate.startsWith('0.798132640292617191')).toBe(true);
    expect(await rate('GBP', 'EUR', '2024-12-31')).toEqual({
      rate: await exact('1 / 0.82918::numeric'),
      source: '2024-12-31',
    });
    expect((await rate('JPY', 'CHF', '2024-12-20'))!.rate).toBe(
      await exact('0.9294::numeric / 163.34::numeric'),
    );
    expect(await rate('SEK', 'SEK', '2024-12-25')).toEqual({ rate: '1', source: '2024-12-25' });
    expect(await rate('EUR', 'EUR', '2024-12-16')).toEqual({ rate: '1', source: '2024-12-16' });
    const roundTrip = await exact(
      `(SELECT a.rate * b.rate FROM fx_rates_daily a JOIN fx_rates_daily b ON b.calendar_date = a.calendar_date
        AND b.base_currency = 'GBP' AND b.quote_currency = 'USD'
        WHERE a.base_currency = 'USD' AND a.quote_currency = 'GBP' AND a.calendar_date = '2024-12-18')`,
    );
    expect(Number(roundTrip)).toBeCloseTo(1, 12);
  });

  it('carries a currency over its N/A cells; a cross pair dates from its older leg', async () => {
    const csv = 'Date,USD,CHF,\n2025-01-03,1.0299,N/A,\n2025-01-02,1.0321,0.9389,\n';
    const result = await importFxText(t.db, csv, { windowDays: 730, today: '2025-01-03' });
    expect(result.ok && result.value.rates).toBe(3);
    expect(await rate('EUR', 'CHF', '2025-01-03')).toEqual({ rate: '0.9389', source: '2025-01-02' });
    expect(await rate('USD', 'CHF', '2025-01-03')).toEqual({
      rate: await exact('0.9389::numeric / 1.0299::numeric'),
      source: '2025-01-02',
    });
    expect(await rate('EUR', 'USD', '2025-01-03')).toEqual({ rate: '1.0299', source: '2025-01-03' });
  });

  it('is idempotent: the same file twice, or the same rates as XML, change nothing', async () => {
    await importFxText(t.db, CSV, opts);
    const before = await snapshot();
    const rawBefore = await t.db.query('SELECT * FROM fx_rates_raw ORDER BY quote_currency, rate_date');
    for (const text of [CSV, XML_90D]) {
      const again = await importFxText(t.db, text, opts);
      expect(again.ok && again.value).toMatchObject({ inserted: 0, updated: 0, unchanged: 60 });
      expect(again.ok && again.value.daily).toMatchObject({
        mode: 'incremental',
        rowsInserted: 0,
        rowsDeleted: 0,
      });
    }
    expect(await snapshot()).toEqual(before);
    expect((await t.db.query('SELECT * FROM fx_rates_raw ORDER BY quote_currency, rate_date')).rows).toEqual(
      rawBefore.rows,
    );
  });

  it('recomputes only from a corrected rate on, matching a full rebuild', async () => {
    await importFxText(t.db, CSV, opts);
    const correction = 'Date,USD,\n2024-12-30,1.0500,\n';
    const result = await importFxText(t.db, correction, opts);
    expect(result.ok && result.value).toMatchObject({ inserted: 0, updated: 1 });
    // 2024-12-30..2025-01-06 = 8 days of 36 pairs.
    expect(result.ok && result.value.daily).toMatchObject({
      mode: 'incremental',
      daysRebuilt: 8,
      rowsInserted: 288,
    });
    expect(await rate('EUR', 'USD', '2024-12-30')).toEqual({ rate: '1.0500', source: '2024-12-30' });
    expect(await rate('EUR', 'USD', '2024-12-29')).toEqual({ rate: '1.0427', source: '2024-12-27' });
    const incremental = await snapshot();
    const full = await rebuildFxDaily(t.db, { ...opts, full: true });
    expect(full.mode).toBe('full');
    expect(await snapshot()).toEqual(incremental);
  });

  it('rebuilds everything when a new currency appears', async () => {
    await importFxText(t.db, CSV, opts);
    const result = await importFxText(t.db, 'Date,NOK,\n2024-12-20,11.7440,\n', opts);
    // 7 currencies = 49 pairs on 22 days, but NOK and its pairs only from 2024-12-20: 4 days x 13 pairs fewer.
    expect(result.ok && result.value.daily).toMatchObject({ mode: 'full', rowsTotal: 22 * 49 - 4 * 13 });
    expect(await rate('NOK', 'USD', '2025-01-06')).toEqual({
      rate: await exact('1.0299::numeric / 11.7440::numeric'),
      source: '2024-12-20',
    });
    expect(await rate('NOK', 'NOK', '2024-12-19')).toBeNull();
  });

  it('extends to a later today and bounds the window to EXPENSE_FX_DAYS before the latest rate', async () => {
    await importFxText(t.db, CSV, opts);
    const later = await rebuildFxDaily(t.db, { windowDays: 730, today: '2025-01-08' });
    expect(later).toMatchObject({
      mode: 'incremental',
      daysRebuilt: 2,
      rowsInserted: 72,
      rowsTotal: 24 * 36,
    });
    expect(await rate('CHF', 'JPY', '2025-01-08')).toMatchObject({ source: '2025-01-03' });

    const narrow = await rebuildFxDaily(t.db, { windowDays: 5, today: '2025-01-08' });
    // 2025-01-03 - 5 days = 2024-12-29, carried from the rate of 2024-12-27.
    expect(narrow).toMatchObject({ windowStart: '2024-12-29', rowsTotal: 11 * 36 });
    expect(await rate('EUR', 'USD', '2024-12-29')).toEqual({ rate: '1.0427', source: '2024-12-27' });
    expect(await rate('EUR', 'USD', '2024-12-28')).toBeNull();
  });

  it('refuses a malformed file with its line and reason, and writes nothing', async () => {
    await importFxText(t.db, CSV, opts);
    const before = await snapshot();
    const broken = CSV.replace('2024-12-27,1.0427,', '2024-12-27,1,0427,');
    const result = await importFxText(t.db, broken, opts);
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'fx_malformed_file',
        line: 6,
        reason: 'expected 7 fields (Date and 6 currencies), found 8',
      },
    });
    expect(await snapshot()).toEqual(before);
    const { rows } = await t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM fx_rates_raw');
    expect(rows[0]!.n).toBe('60');
  });

  it('seeds an empty installation once', async () => {
    const first = await seedFxIfEmpty(t.db, { today: TODAY });
    expect(first).toMatchObject({ inserted: 60, daily: { rowsTotal: 22 * 36 } });
    expect(await seedFxIfEmpty(t.db, { today: TODAY })).toBeNull();
  });

  it('lets the SQL role read both tables and write neither', async () => {
    await importFxText(t.db, CSV, opts);
    const attempts: Array<(tx: SqlSession) => Promise<unknown>> = [
      (tx) =>
        tx.query(
          `INSERT INTO fx_rates_raw (base_currency, quote_currency, rate_date, rate, source) VALUES ('EUR','USD','2030-01-01',1,'x')`,
        ),
      (tx) => tx.query('UPDATE fx_rates_raw SET rate = 2'),
      (tx) => tx.query('DELETE FROM fx_rates_raw'),
      (tx) => tx.query(`INSERT INTO fx_rates_daily VALUES ('EUR','USD','2030-01-01',1,'2030-01-01')`),
      (tx) => tx.query('UPDATE fx_rates_daily SET rate = 2'),
      (tx) => tx.query('DELETE FROM fx_rates_daily'),
      (tx) => tx.query('TRUNCATE fx_rates_daily'),
    ];
    for (const attempt of attempts) {
      await expect(t.asSqlRole(attempt)).rejects.toMatchObject({ code: '42501' });
    }
    const read = await t.asSqlRole((tx) => tx.query('SELECT count(*)::text AS n FROM fx_rates_daily'));
    expect(read.rows[0]!.n).toBe(String(22 * 36));
  });
});
