// The 2025-era stateless leg of /mcp (src/features/mcp/legacy.ts) answers each POST from a pooled server instance connected
// to its own transport (json-exchange.ts), without the SDK's web transport. These are the answers that transport
// gave, kept byte for byte: the media-type checks, an unsupported protocol version,
// a notification, GET and DELETE. And a refused message leaves the pooled instance as it found it.
import { PGLITE } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';

describe('/mcp, 2025-era messages answered as one JSON body', () => {
  let live: Live;
  let user: TestUser;
  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(PGLITE));
  });
  afterAll(async () => live?.close());

  const post = async (body: unknown, headers: Record<string, string> = {}, method = 'POST') => {
    const res = await fetch(`${live.origin}/mcp`, {
      method,
      headers: {
        authorization: `ApiKey ${user.apiKey}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
  };
  const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  it('answers a request with its JSON-RPC answer, as application/json', async () => {
    const res = await post(toolsList(7));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 7 });
    expect(res.json.result.tools.map((t: { name: string }) => t.name)).toContain('query');
  });

  it('refuses what the SDK transport refuses, with its codes and texts', async () => {
    const notAcceptable = await post(toolsList(1), { accept: 'application/json' });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.json.error).toEqual({
      code: -32000,
      message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
    });

    // A body that is not a JSON-RPC message at all is the modern leg's to answer (the SDK's classifier sends it
    // there); either way it is a 400 with a JSON-RPC error and nothing runs.
    const notJsonRpc = await post({ hello: 'world' });
    expect(notJsonRpc.status).toBe(400);
    expect([-32600, -32700]).toContain(notJsonRpc.json.error.code);

    const version = await post(toolsList(3), { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(version.json.error.message).toMatch(
      /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported/,
    );
    expect(version.json.error.message).toContain('2025-11-25');

    for (const method of ['GET', 'DELETE']) {
      const refused = await post(undefined, {}, method);
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('POST');
      expect(refused.json.error.code).toBe(-32000);
    }
  });

  it('takes a notification with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('answers initialize with the negotiated version, and later messages still work', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(init.status).toBe(200);
    expect(init.json.result.protocolVersion).toBe('2025-11-25');
    // Refusals and answers in any order: each message gets its own answer, by its own id.
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => post(id % 2 ? toolsList(id) : { id })));
    for (const [index, answer] of answers.entries()) {
      const id = index + 1;
      if (id % 2) expect(answer.json).toMatchObject({ id, result: { tools: expect.any(Array) } });
      else expect(answer.status).toBe(400);
    }
  });

  it('answers a tool call with the tool result, and an unknown tool as an error result', async () => {
    const call = await post({
      jsonrpc: '2.0',
      id: 11,
      method: 'tools/call',
      params: { name: 'query', arguments: { sql: 'SELECT 1 AS one' } },
    });
    expect(call.status).toBe(200);
    expect(call.json.id).toBe(11);
    expect(call.json.result.structuredContent).toBeDefined();
    const unknown = await post({
      jsonrpc: '2.0',
      id: 12,
      method: 'tools/call',
      params: { name: 'no_such_tool', arguments: {} },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.json.id).toBe(12);
    expect(unknown.json.result?.isError ?? unknown.json.error).toBeTruthy();
  });
});
