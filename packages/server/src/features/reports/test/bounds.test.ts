// Issue 35, item 6: every report kind takes days PostgreSQL holds, in order, over at most 36 months, and is
// refused with invalid_request and the next step before any SQL runs (GET /v1/reports and the MCP report tool).
import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { REPORT_KINDS } from '@expense/wire/reports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf, httpClient } from '../../mcp/test/helpers.js';
import { ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

const REFUSED = {
  'to past what a report covers': 'from=2026-01-01&to=9999-12-31',
  '37 months': 'from=2024-01-01&to=2027-01-31',
  'from after to': 'from=2026-03-01&to=2026-02-28',
  'a day that does not exist': 'from=2026-02-01&to=2026-02-30',
  'year 0, which PostgreSQL does not have': 'from=0000-01-01&to=0000-01-31',
  'not a date': 'from=2026-01-01&to=2026-1-31',
};

describe.each(ENGINES.slice(0, 1))('report bounds ($name)', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  }, 120_000);
  afterAll(async () => live?.close());

  const report = (kind: string, query: string, headers: Record<string, string> = {}) =>
    live.request('GET', `${routePath(API_ROUTES.report, { kind })}?${query}`, { key: user.apiKey, headers });

  it.each(REPORT_KINDS)('%s: refuses each bad range with invalid_request and the next step', async (kind) => {
    for (const [name, query] of Object.entries(REFUSED)) {
      // A foreign workspace would be a 404 once the SQL's first round trip ran: the refusal comes before it.
      const res = await report(kind, query, { 'x-workspace-id': '00000000-0000-4000-8000-000000000000' });
      expect(res.status, `${kind}, ${name}: ${res.text}`).toBe(400);
      expect(res.body.error.code, name).toBe('invalid_request');
      expect(res.body.error.hint, name).toMatch(/at most 36 months apart/);
    }
  });

  it.each(REPORT_KINDS)(
    '%s: answers the edges PostgreSQL holds (36 months; the last days of 9999)',
    async (kind) => {
      for (const query of [
        'from=2024-01-01&to=2026-12-31',
        'from=9999-12-01&to=9999-12-31',
        'from=0001-01-01&to=0001-01-31',
      ]) {
        const res = await report(kind, query);
        expect(res.status, `${kind} ${query}: ${res.text}`).toBe(200);
        expect(res.body.data.kind).toBe(kind);
      }
    },
  );

  it('the MCP report tool refuses the same ranges', async () => {
    const client = await httpClient(live, user.apiKey, 'inject');
    try {
      for (const [from, to] of [
        ['2026-01-01', '9999-12-31'],
        ['2024-01-01', '2027-01-31'],
        ['2026-03-01', '2026-02-28'],
      ]) {
        const error = errorOf(await call(client, 'report', { kind: 'balances', from, to, workspaceId }));
        expect(error.error.code, `${from}..${to}`).toBe('invalid_report');
      }
      const invalidDay = errorOf(
        await call(client, 'report', { kind: 'balances', from: '2026-02-01', to: '2026-02-30', workspaceId }),
      );
      expect(['invalid_request', 'invalid_report']).toContain(invalidDay.error.code);
    } finally {
      await client.close();
    }
  });
});
