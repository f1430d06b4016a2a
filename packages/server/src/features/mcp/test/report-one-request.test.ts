// The `report` tool is GET /reports/{kind} itself: one API request (one snapshot, one point of the key's limits),
// not its three statements sent one by one.
import { PGLITE } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

describe('the report tool', () => {
  let live: Live;
  let user: TestUser;
  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(PGLITE, { ratePerDay: 4 }));
  });
  afterAll(async () => live?.close());

  const post = (body: unknown) =>
    live.request('POST', '/mcp', {
      key: user.apiKey,
      body,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    });

  it('spends one point for its message and one for GET /reports, and answers the route’s data', async () => {
    const report = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'report',
        arguments: { kind: 'spend_by_category', from: '2026-11-01', to: '2026-11-30' },
      },
    });
    expect(report.status).toBe(200);
    const result = report.body.result;
    expect(result.isError ?? false, JSON.stringify(result).slice(0, 300)).toBe(false);
    expect(result.structuredContent).toMatchObject({
      kind: 'spend_by_category',
      from: '2026-11-01',
      to: '2026-11-30',
    });
    expect(result.structuredContent.instructions).toBeUndefined();
    // 4 a day: the report's message and its one API call spent two; two more messages pass, the next is refused.
    const list = (id: number) => post({ jsonrpc: '2.0', id, method: 'tools/list' });
    expect([(await list(2)).status, (await list(3)).status, (await list(4)).status]).toEqual([200, 200, 429]);
  });
});
