import {
  type AuthInfo,
  classifyInboundRequest,
  isJsonContentType,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  parseJSONRPCMessage,
} from '@modelcontextprotocol/server';
import type { ServerLease } from './pool.js';
import { leavesNoState } from './pool.js';

/** An HTTP answer as a value: the route sends it without a web Response around it. */
export interface JsonAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What the legacy leg reads of an HTTP request. */
export interface LegacyRequest {
  method: string;
  headers: { get(name: string): string | null };
  body: unknown;
  authInfo: AuthInfo;
}

const jsonRpcError = (status: number, code: number, message: string, id: unknown = null): JsonAnswer => ({
  status,
  ...(status === 405 ? { headers: { allow: 'POST' } } : {}),
  body: { jsonrpc: '2.0', error: { code, message }, id },
});

const requestId = (body: unknown) => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id } = body as { id?: unknown };
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

const isRequest = (
  message: JSONRPCMessage,
): message is Extract<JSONRPCMessage, { method: string; id: unknown }> =>
  'method' in message && 'id' in message;

/**
 * 2025-era (legacy) stateless serving: a POST carries one JSON-RPC message and gets its answer as one JSON body;
 * GET and DELETE (streams and sessions) are refused with 405. It answers what the SDK's web-standard transport
 * answers in JSON-response mode, with the same checks and texts (406 without both media types in Accept, 415, a
 * -32700 for a message that is not JSON-RPC, 400 for an unsupported `MCP-Protocol-Version`, 202 for a
 * notification), at the cost of a function call (issue 22: the query tool within 1.3x of POST /v1/sql/query):
 * the server instance is leased from a per-process pool (pool.ts), already connected to its transport
 * (json-exchange.ts), and no web Request, Response or stream is built. The caller routes here what `isLegacy`
 * says is legacy.
 */
export function legacyJsonHandler(
  lease: (authInfo: AuthInfo) => Promise<ServerLease>,
  onerror: (error: Error) => void,
) {
  return async (request: LegacyRequest): Promise<JsonAnswer> => {
    if (request.method.toUpperCase() !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed.');
    const accept = request.headers.get('accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return jsonRpcError(
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    if (!isJsonContentType(request.headers.get('content-type'))) {
      return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(request.body);
    } catch {
      return jsonRpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    try {
      const { transport, release } = await lease(request.authInfo);
      let reusable = false;
      try {
        const version = request.headers.get('mcp-protocol-version');
        if (
          version !== null &&
          !('method' in message && message.method === 'initialize') &&
          !transport.supportedProtocolVersions.includes(version)
        ) {
          reusable = true;
          return jsonRpcError(
            400,
            -32000,
            `Bad Request: Unsupported protocol version: ${version} (supported versions: ${transport.supportedProtocolVersions.join(', ')})`,
          );
        }
        if (!isRequest(message)) {
          transport.deliver(message, request.authInfo);
          return { status: 202 };
        }
        const answer = await transport.exchange(message, request.authInfo);
        reusable = leavesNoState(message);
        return { status: 200, headers: { 'content-type': 'application/json' }, body: answer };
      } finally {
        release(reusable);
      }
    } catch (error) {
      onerror(error instanceof Error ? error : new Error(String(error)));
      return jsonRpcError(500, -32603, 'Internal server error', requestId(request.body));
    }
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Whether a POSTed message claims the 2026-07-28 revision: a request or notification (a `method`, other than
 * `initialize`) whose `params._meta` carries the protocol-version key. The SDK's classifier never calls such a
 * message legacy — it is served or refused (a bad envelope, a header that disagrees) by the modern path — so
 * the classifier, which validates the whole envelope, need not run twice for it (the SDK's handler runs it
 * again). `initialize` is left to the classifier: with an invalid claim it is a legacy handshake.
 */
function claimsModern(body: unknown): boolean {
  if (!isObject(body) || typeof body.method !== 'string' || body.method === 'initialize') return false;
  if ('result' in body || 'error' in body) return false;
  const meta = isObject(body.params) ? body.params._meta : undefined;
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * Whether the SDK's entry would route this request to its 2025-era serving: `isLegacyRequest`'s own rule (a POST
 * without a JSON body, or what `classifyInboundRequest` calls legacy), read from the parsed body and the headers
 * without building a web Request.
 */
export function isLegacy(method: string, headers: LegacyRequest['headers'], body: unknown): boolean {
  const httpMethod = method.toUpperCase();
  if (httpMethod === 'POST' && body === undefined) return true;
  if (httpMethod === 'POST' && claimsModern(body)) return false;
  const header = (name: string) => headers.get(name) ?? undefined;
  const outcome = classifyInboundRequest({
    httpMethod,
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    ...(body !== undefined ? { body } : {}),
  });
  return outcome.kind === 'legacy';
}
