import {
  type AuthInfo,
  isJsonContentType,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { leavesNoState, type ServerLease } from './pool.js';

const jsonRpcError = (status: number, code: number, message: string, id: unknown = null) =>
  Response.json(
    { jsonrpc: '2.0', error: { code, message }, id },
    { status, ...(status === 405 ? { headers: { Allow: 'POST' } } : {}) },
  );

const requestId = (body: unknown) => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id } = body as { id?: unknown };
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/**
 * 2025-era (legacy) stateless serving as the SDK's own fallback does it — a transport per POST, GET and DELETE
 * refused with 405 — with two savings (issue 22: the cost of the query tool): the server instance is leased from a
 * per-process pool (pool.ts) instead of built for the message, and a request is answered with one JSON body
 * rather than an SSE stream of one event (the same JSON-RPC message, without a stream to build, pump and tear
 * down). Stateless HTTP has nothing to push before the answer (no elicitation, no progress), so nothing is lost.
 * The caller routes here what `isLegacyRequest` says is legacy.
 */
export function legacyJsonHandler(
  lease: (authInfo: AuthInfo | undefined) => ServerLease,
  onerror: (error: Error) => void,
) {
  return async (
    request: Request,
    options: { authInfo?: AuthInfo; parsedBody?: unknown },
  ): Promise<Response> => {
    if (request.method.toUpperCase() !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed.');
    if (!isJsonContentType(request.headers.get('content-type'))) {
      return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    try {
      const { server, release } = lease(options.authInfo);
      let reusable = false;
      try {
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await server.connect(transport);
        const response = await transport.handleRequest(request, {
          ...(options.authInfo ? { authInfo: options.authInfo } : {}),
          ...(options.parsedBody !== undefined ? { parsedBody: options.parsedBody } : {}),
        });
        reusable = leavesNoState(options.parsedBody);
        return response;
      } finally {
        // Closing the server closes its transport; only then may the instance serve another message.
        server.close().then(
          () => release(reusable),
          () => release(false),
        );
      }
    } catch (error) {
      onerror(error instanceof Error ? error : new Error(String(error)));
      return jsonRpcError(500, -32603, 'Internal server error', requestId(options.parsedBody));
    }
  };
}

export { isLegacyRequest };
