// Issue 13, points 3 and 5: honest FX data (coverage, staleness, how to get fresh rates) and instructions that
// remove guesswork (settings after creating a workspace, categories, month buckets, decimal strings).
import { createGuard } from '@expense/sql-guard';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, daysBetween } from '../../../platform/clock/clock.js';
import { RECIPES } from '../../../platform/storage/relation-hints.js';
import { coverageHints, FxCoverage, staleRatesInstruction } from '../../fx/coverage.js';
import { seedFxIfEmpty } from '../../fx/index.js';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Json,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';

/** The bundled ECB excerpt: 16 December 2024 to 3 January 2025. */
const FIRST = '2024-12-16';
const NEWEST = '2025-01-03';

describe.each(ENGINES)('guidance on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    live = await startLive(engine);
    // Before any request reads the coverage: the state of a new embedded installation.
    await seedFxIfEmpty(live.db);
    user = await createUser(live.db);
    await addWorkspace(live.db, user.userId);
  });
  afterAll(async () => live?.close());

  const query = (sql: string) => call(live, API_ROUTES.sqlQuery, { key: user.apiKey, body: { sql } });
  const hintsOf = (schema: Json, name: string): string[] =>
    schema.data.relations.find((r: { name: string }) => r.name === name).hints;

  it('states the FX coverage on /schema and warns that the newest rate is old', async () => {
    const schema = (await call(live, API_ROUTES.schema, { key: user.apiKey })).body;
    const today = schema.data.clock.today;
    for (const name of ['fx_rates_raw', 'fx_rates_daily']) {
      const hints = hintsOf(schema, name);
      expect(hints).toContain(`ECB rates held: from ${FIRST} to ${NEWEST} (market days).`);
      const warning = hints.find((h) => h.startsWith('Warning'));
      expect(warning).toContain(`the newest rate is ${daysBetween(NEWEST, today)} days old`);
      expect(warning).toContain('expense-server fx sync');
      expect(warning).toContain('--fx-sync');
    }
  });

  it('says so on an SQL result that read fx_rates_daily, and only then', async () => {
    const converted = await query(
      "SELECT r.rate, r.source_rate_date FROM fx_rates_daily r WHERE r.base_currency = 'USD' AND r.quote_currency = 'EUR' AND r.calendar_date = DATE '2025-06-01'",
    );
    expect(converted.status).toBe(200);
    // The carried-forward row itself: 149 days after its market day.
    expect(converted.body.data.statements[0].rows[0].source_rate_date).toBe(NEWEST);
    const said = converted.body.instructions.find((i: string) =>
      i.startsWith('fx_rates_daily holds no ECB rate'),
    );
    expect(said).toContain(`after ${NEWEST}`);
    expect(said).toContain('carried forward');
    expect(said).toContain('expense-server fx sync');

    const plain = await query('SELECT count(*) AS n FROM ledger_entries');
    expect(plain.body.instructions.join(' ')).not.toContain('fx_rates_daily');
    const raw = await query('SELECT max(rate_date) AS d FROM fx_rates_raw');
    expect(raw.body.instructions.join(' ')).not.toContain('carried forward');
  });

  it('tells how to get fresh rates on discovery and /me', async () => {
    const discovery = (await call(live, API_ROUTES.discovery)).body;
    expect(discovery.data.docs.guideUrl).toMatch(/\/v1\/guide$/);
    expect(discovery.instructions.join(' ')).toContain('expense-server fx sync');
    const me = (await call(live, API_ROUTES.me, { key: user.apiKey })).body;
    expect(me.instructions.join(' ')).toContain(`The newest exchange rate is from ${NEWEST}`);
    expect(me.instructions.join(' ')).toContain('--fx-sync');
  });

  it('asks to confirm currency and time zone after creating a workspace, with an UPDATE that runs', async () => {
    const created = await call(live, API_ROUTES.createWorkspace, {
      key: user.apiKey,
      body: { name: 'Trip' },
    });
    expect(created.status).toBe(201);
    const said: string = created.body.instructions.find((i: string) => i.includes('time zone'));
    expect(said).toContain('reporting currency');
    const update = /"sql": "(UPDATE workspace_settings [^"]+)"/.exec(said)?.[1];
    expect(update).toBeDefined();
    const ran = await call(live, API_ROUTES.sqlExecute, {
      key: user.apiKey,
      body: { sql: update! },
      headers: { 'x-workspace-id': created.body.data.workspace.workspaceId },
    });
    expect(ran.status).toBe(200);
    // The clock is read as a request begins: the next one shows the new zone.
    const next = await call(live, API_ROUTES.sqlQuery, {
      key: user.apiKey,
      body: { sql: 'SELECT reporting_currency, timezone FROM workspace_settings' },
      headers: { 'x-workspace-id': created.body.data.workspace.workspaceId },
    });
    expect(next.body.data.statements[0].rows).toEqual([
      { reporting_currency: 'EUR', timezone: 'Europe/Berlin' },
    ]);
    expect(next.body.data.clock.timeZone).toBe('Europe/Berlin');
  });

  it('tells to reuse categories, how numbers come back, and recipes that run', async () => {
    const schema = (await call(live, API_ROUTES.schema, { key: user.apiKey })).body;
    expect(hintsOf(schema, 'ledger_entries').join(' ')).toContain(
      'SELECT DISTINCT category FROM ledger_entries',
    );
    expect(hintsOf(schema, 'budget_lines').join(' ')).toContain('must equal ledger_entries.category exactly');
    expect(schema.data.rules.join(' ')).toContain('decimal strings');
    expect(schema.instructions.join(' ')).toContain('Budget categories must match them exactly');

    await call(live, API_ROUTES.sqlScript, {
      key: user.apiKey,
      body: {
        sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-05 10:00:00+00', 'card', -10.50, 'EUR', 'spend', 'Groceries'), (TIMESTAMPTZ '2026-01-20 10:00:00+00', 'card', -4.25, 'EUR', 'spend', 'groceries'), (TIMESTAMPTZ '2026-02-02 10:00:00+00', 'card', -20, 'EUR', 'spend', 'rent')",
      },
    });

    const lower = await query(
      'SELECT LOWER(category) AS c, SUM(amount) AS total FROM ledger_entries GROUP BY LOWER(category)',
    );
    expect(lower.body.error.code).toBe('function_not_allowed');
    expect(lower.body.error.hint).toBe(RECIPES.caseInsensitive);
    const grouping = /GROUP BY (CASE WHEN .+? END)/.exec(lower.body.error.hint)?.[1];
    const grouped = await query(
      `SELECT ${grouping} AS c, SUM(amount) AS total FROM ledger_entries GROUP BY ${grouping} ORDER BY c`,
    );
    expect(grouped.body.data.statements[0].rows).toEqual([
      { c: 'groceries', total: '-14.75' },
      { c: 'rent', total: '-20' },
    ]);

    const trunc = await query(
      "SELECT DATE_TRUNC('month', ts) AS m, SUM(amount) FROM ledger_entries GROUP BY 1",
    );
    expect(trunc.body.error.code).toBe('function_not_allowed');
    const hint: string = trunc.body.error.hint;
    expect(hint).toContain(RECIPES.monthBuckets);
    expect(hint).toContain('WITH RECURSIVE months');
    const buckets = await query(/(SELECT m\.month_start.+)$/.exec(RECIPES.monthBuckets)?.[1] ?? '');
    expect(buckets.body.data.statements[0].rows).toEqual([
      { month_start: '2026-01-01', total: '-14.75' },
      { month_start: '2026-02-01', total: '-20' },
    ]);
    expect(buckets.body.data.statements[0].columns[1]).toEqual({ name: 'total', type: 'numeric' });

    // The calendar needs read-only WITH RECURSIVE, which the guard accepts from its next version on.
    const calendar = /(WITH RECURSIVE .+)$/.exec(RECIPES.monthCalendar)?.[1] ?? '';
    // As SQL the calendar is right on both engines (run here as the owner, past the guard)...
    const owner = await live.db.query<{ month_start: string; total: string }>(calendar);
    expect(owner.rows.length).toBe(12);
    expect(owner.rows.slice(0, 3).map((r) => [r.month_start, String(r.total)])).toEqual([
      ['2026-01-01', '-14.75'],
      ['2026-02-01', '-20'],
      ['2026-03-01', '0'],
    ]);
    // ...and through the API once the guard accepts it.
    const guard = await createGuard();
    if (guard.check(calendar, { mode: 'query' }).ok) {
      const months = await query(calendar);
      expect(months.body.data.statements[0].rows.slice(0, 3)).toEqual([
        { month_start: '2026-01-01', total: '-14.75' },
        { month_start: '2026-02-01', total: '-20' },
        { month_start: '2026-03-01', total: '0' },
      ]);
      expect(months.body.data.statements[0].rowCount).toBe(12);
    }
  });
});

describe('FX coverage rules', () => {
  it('warns only beyond seven days, and counts from today', () => {
    const range = { first: '2026-01-05', newest: '2026-03-02' };
    expect(coverageHints(range, addDays('2026-03-02', 7))).toEqual([
      'ECB rates held: from 2026-01-05 to 2026-03-02 (market days).',
    ]);
    expect(staleRatesInstruction(range, '2026-03-09')).toBeUndefined();
    expect(coverageHints(range, '2026-03-10')[1]).toMatch(/^Warning: the newest rate is 8 days old/);
    expect(staleRatesInstruction(range, '2026-03-10')).toContain('after 2026-03-02 (8 days before today');
    expect(coverageHints({ first: null, newest: null }, '2026-03-10')[0]).toMatch(
      /^No ECB rates are held yet/,
    );
    expect(staleRatesInstruction({ first: null, newest: null }, '2026-03-10')).toMatch(
      /^fx_rates_daily is empty/,
    );
  });

  it('reads the range once per TTL, again after invalidate, and peeks without waiting', async () => {
    let reads = 0;
    let clock = 0;
    const db = {
      query: async () => {
        reads++;
        return { rows: [{ first: '2026-01-01', newest: `2026-01-0${reads}` }], rowCount: 1 };
      },
    } as never;
    const coverage = new FxCoverage(db, 1000, () => clock);
    expect((await coverage.get()).newest).toBe('2026-01-01');
    expect((await coverage.peek()).newest).toBe('2026-01-01');
    expect(reads).toBe(1);
    coverage.invalidate();
    expect((await coverage.get()).newest).toBe('2026-01-02');
    clock = 1500;
    // Old: peek answers the kept range at once and reads in the background.
    expect((await coverage.peek()).newest).toBe('2026-01-02');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(3);
    expect((await coverage.peek()).newest).toBe('2026-01-03');
  });
});
