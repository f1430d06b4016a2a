import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';
import { call, type Era, errorOf, httpClient, type Transport } from './helpers.js';
import { type SuiteContext, setKey, TOOLS, toolSuite } from './suite.js';

describe.each(ENGINES)('MCP over Streamable HTTP on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;
  // The two rate-limit tests' servers (3 requests a second; 4 a day), started side by side with the main one.
  let perSecond: Live;
  let perDay: Live;

  beforeAll(async () => {
    let main: Awaited<ReturnType<typeof startWithWorkspace>>;
    [main, perSecond, perDay] = await Promise.all([
      startWithWorkspace(engine),
      startLive(engine, { ratePerSecond: 3 }),
      startLive(engine, { ratePerSecond: 1_000, ratePerDay: 4 }),
    ]);
    ({ live, user, workspaceId } = main);
  });
  afterAll(async () => {
    await Promise.all([live?.close(), perSecond?.close(), perDay?.close()]);
  });

  const count = async (account: string) =>
    (await live.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows.length;

  describe.each([
    ['socket', 'legacy'],
    ['inject', 'legacy'],
    ['socket', 'modern'],
  ] as [Transport, Era][])('via %s, %s protocol', (via, era) => {
    let client: Client;
    const run = randomUUID().slice(0, 8);
    beforeAll(async () => {
      client = await httpClient(live, user.apiKey, via, era);
    });
    afterAll(async () => client?.close());
    const ctx: SuiteContext = {
      tools: TOOLS,
      live: () => live,
      client: () => client,
      workspaceId: () => workspaceId,
      account: (name) => `${name}-${run}`,
      count,
    };
    beforeAll(() => setKey(ctx, user.apiKey));
    toolSuite(ctx);
  });

  it('answers 401 with the RFC 9728 challenge without credentials or with a bad key', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream' };
    for (const key of [undefined, 'exp_live_not-a-key']) {
      const res = await live.request('POST', '/mcp', {
        body,
        headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `Bearer resource_metadata="${live.origin}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(res.body.error.code).toBe(key ? 'invalid_api_key' : 'missing_api_key');
    }
    const meta = await live.request('GET', '/.well-known/oauth-protected-resource/mcp');
    expect(meta.status).toBe(200);
    expect(meta.body.resource).toBe(`${live.origin}/mcp`);
    expect(meta.body.bearer_methods_supported).toEqual(['header']);
  });

  it('accepts Bearer <key> and serves the 2025-03-26 and 2025-06-18 handshakes too', async () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await live.request('POST', '/mcp', {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
        headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${user.apiKey}` },
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain(`"protocolVersion":"${version}"`);
    }
  });

  it('server instances are reused between messages but serve one caller at a time: two keys, interleaved, each see their own', async () => {
    const others = await Promise.all(
      [1, 2].map(async () => {
        const u = await createUser(live.db);
        return { key: u.apiKey, workspaceId: await addWorkspace(live.db, u.userId) };
      }),
    );
    const clients = await Promise.all(others.map((o) => httpClient(live, o.key, 'socket')));
    try {
      // Both keys at once, each one SQL request at a time (its in-flight limit is 2) beside a list.
      const seen = (
        await Promise.all(
          others.map(async (o, i) => {
            const mine = [];
            for (let round = 0; round < 6; round++) {
              const [ws, q] = await Promise.all([
                call(clients[i]!, 'list_workspaces'),
                call(clients[i]!, 'query', { sql: 'SELECT 1 AS one' }),
              ]);
              mine.push({
                expected: o.workspaceId,
                listed: ws.structuredContent.workspaces,
                ran: q.structuredContent,
              });
            }
            return mine;
          }),
        )
      ).flat();
      for (const s of seen) {
        expect(s.listed.map((w: { workspaceId: string }) => w.workspaceId)).toEqual([s.expected]);
        expect(s.ran.workspaceId).toBe(s.expected);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('counts every tool call against the key: an API call over the limit is a rate_limited tool error', async () => {
    const limited = perSecond;
    const u = await createUser(limited.db);
    await addWorkspace(limited.db, u.userId);
    const client = await httpClient(limited, u.apiKey, 'socket');
    // A tool call spends a point for its message and one per API call it makes (3 per second here): a refused
    // call, its message or its API call, is a rate_limited tool error that says when to retry.
    const refusals: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await call(client, 'get_schema', { relations: ['accounts'] }).catch((e: Error) => e);
      if (r instanceof Error) refusals.push(/"code":"rate_limited"/.test(r.message) ? 'http 429' : r.message);
      else if (r.isError) {
        expect(errorOf(r).error).toMatchObject({ code: 'rate_limited', retryable: true });
        expect(errorOf(r).nextAction).toMatch(/Retry-After/);
        refusals.push('tool error');
      }
    }
    expect(refusals.length).toBeGreaterThan(0);
    for (const r of refusals) expect(['http 429', 'tool error']).toContain(r);
    await client.close();
  });

  it('every JSON-RPC message spends a point of the key (tools/list too); batches are refused', async () => {
    const limited = perDay;
    const u = await createUser(limited.db);
    const headers = { accept: 'application/json, text/event-stream', authorization: `ApiKey ${u.apiKey}` };
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
    const batch = await limited.request('POST', '/mcp', { body: [list(1), list(2)], headers });
    expect(batch.status).toBe(400);
    expect(batch.body.error.code).toBe(-32600);
    expect(batch.body.error.message).toMatch(/batches are not supported/);
    const statuses: number[] = [];
    for (let id = 0; id < 4; id++) {
      statuses.push((await limited.request('POST', '/mcp', { body: list(id), headers })).status);
    }
    // 4 a day: the batch spent one, three tools/list the rest, the fourth is refused.
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await limited.request('POST', '/mcp', { body: list(9), headers });
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });
});
