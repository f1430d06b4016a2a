// /mcp routes each message to the 2025-era leg (legacy.ts) or to the SDK's 2026-07-28 handler by `isLegacy`, which
// answers without the full classifier for a message that claims the 2026-07-28 envelope (issue 39: the SDK's handler
// classifies it again). Whatever the shortcut, the route must be the SDK's own: `isLegacyRequest` on the same
// request says the same for every message below, modern, legacy, refused and malformed.
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isLegacy } from '../legacy.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const envelope = {
  [VERSION]: '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'routing-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const params = {
  none: undefined,
  plain: { name: 'query', arguments: { sql: 'SELECT 1' } },
  claim: { name: 'query', arguments: { sql: 'SELECT 1' }, _meta: envelope },
  claimOnly: { name: 'query', _meta: { [VERSION]: '2026-07-28' } },
  claimUnserved: { _meta: { ...envelope, [VERSION]: '2099-01-01' } },
  claimNotString: { _meta: { ...envelope, [VERSION]: 7 } },
  metaWithoutClaim: { _meta: { progressToken: 1 } },
  metaNotObject: { _meta: 'x' },
  initializeClaim: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
    _meta: envelope,
  },
  initializeBadClaim: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
    _meta: { [VERSION]: '2026-07-28' },
  },
} as const;

const bodies: Record<string, unknown> = {
  absent: undefined,
  array: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  arrayWithClaim: [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: params.claim }],
  emptyArray: [],
  result: { jsonrpc: '2.0', id: 1, result: {} },
  resultWithClaim: { jsonrpc: '2.0', id: 1, result: {}, params: params.claim },
  error: { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } },
  notJsonRpc: { hello: 'world' },
  methodNotString: { jsonrpc: '2.0', id: 1, method: 7, params: params.claim },
  noJsonrpc: { id: 1, method: 'tools/call', params: params.claim },
  nullId: { jsonrpc: '2.0', id: null, method: 'tools/call', params: params.claim },
};
for (const [p, value] of Object.entries(params)) {
  const withParams = value === undefined ? {} : { params: value };
  bodies[`request/${p}`] = { jsonrpc: '2.0', id: 1, method: 'tools/call', ...withParams };
  bodies[`notification/${p}`] = { jsonrpc: '2.0', method: 'notifications/initialized', ...withParams };
  bodies[`initialize/${p}`] = { jsonrpc: '2.0', id: 1, method: 'initialize', ...withParams };
  bodies[`requestWithResultKey/${p}`] = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    result: {},
    ...withParams,
  };
}

const headerSets: Record<string, Record<string, string>> = {
  none: {},
  legacy: { 'mcp-protocol-version': '2025-11-25' },
  modern: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'query' },
  modernOtherMethod: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  unserved: { 'mcp-protocol-version': '2099-01-01' },
};

describe('isLegacy routes /mcp messages as the SDK does', () => {
  it('agrees with isLegacyRequest on every message, header set and HTTP method', async () => {
    let compared = 0;
    let modern = 0;
    for (const method of ['POST', 'GET', 'DELETE']) {
      for (const [bodyName, body] of Object.entries(bodies)) {
        if (method !== 'POST' && body !== undefined) continue;
        for (const [headerName, extra] of Object.entries(headerSets)) {
          const headers = { 'content-type': 'application/json', ...extra };
          const request = new Request('http://127.0.0.1/mcp', { method, headers });
          const sdk = await isLegacyRequest(request, body);
          const ours = isLegacy(
            method,
            { get: (name) => headers[name as keyof typeof headers] ?? null },
            body,
          );
          expect({ method, bodyName, headerName, legacy: ours }).toEqual({
            method,
            bodyName,
            headerName,
            legacy: sdk,
          });
          compared++;
          if (!sdk) modern++;
        }
      }
    }
    // Both answers occur: the corpus exercises the shortcut and the classifier.
    expect(compared).toBeGreaterThan(200);
    expect(modern).toBeGreaterThan(50);
    expect(compared - modern).toBeGreaterThan(50);
  });
});
