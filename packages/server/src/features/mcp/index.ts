import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { apiErrorResult, createExpenseMcpServer, type McpApi, McpApiError } from '@expense/mcp';
import { type AuthInfo, createMcpHandler, type McpRequestContext } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError, isApiError } from '../../platform/http/api-error.js';
import { failure } from '../../platform/http/envelope.js';
import { applyKeyLimits } from '../../platform/ratelimit/limits.js';
import { verifyKey } from '../auth/authenticate.js';
import { invalidKeyError } from '../auth/key-refusal.js';
import { SCOPES } from '../oauth/scopes.js';
import { clientGone } from '../sql/deadline.js';
import { injectApi } from './inject-api.js';
import { isLegacy, type LegacyRequest, legacyJsonHandler } from './legacy.js';
import { type DetachedLease, ServerPool } from './pool.js';
import { sqlApi, type ToolCaller } from './sql-api.js';

/** A request's headers as the legacy leg reads them. */
function headersOf(request: FastifyRequest): LegacyRequest['headers'] {
  return {
    get(name: string): string | null {
      const value = request.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * A request's headers for the web Request the SDK's handler reads, as one record: without the credential (the
 * route verified it; the tools get the caller through authInfo) and without Content-Length (the SDK takes the
 * parsed body and never reads the request's).
 */
function webHeadersOf(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in request.headers) {
    if (name === 'authorization' || name === 'content-length') continue;
    const value = request.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The bytes of a JSON answer's body as one Buffer, read straight from its stream: the SDK built the stream from
 * one serialised string (Response.json), so it is one chunk, sent on as it is — not decoded into a string and
 * encoded again (Response.text) nor copied through Response.arrayBuffer's machinery.
 */
async function bytesOf(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** The id of a `tools/call` request, else undefined. */
function toolCallId(body: unknown): string | number | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return method === 'tools/call' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

/** `Authorization: ApiKey <key>` or `Bearer <key>` (OAuth access tokens are ApiKeys of kind oauth). */
const CREDENTIALS = /^(?:ApiKey|Bearer)[ \t]+(\S+)[ \t]*$/i;
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource/mcp';
const SERVER_VERSION = '1';

interface Caller extends ToolCaller {
  apiKey: string;
  ip: string;
}

export interface McpRoutesOptions {
  /** The app the API routes are on (the tools call them in-process). */
  root: () => FastifyInstance;
  /** Where the API routes are mounted, with the app's prefix. */
  apiBasePath: string;
}

/**
 * Streamable HTTP MCP at `/mcp` on the public origin (stateless: the 2026-07-28 revision and, through the SDK's
 * stateless fallback, the 2025 ones), and its RFC 9728 protected-resource metadata. The tools call this
 * server's own routes in-process with the caller's key (see inject-api.ts; SQL through sql-api.ts).
 */
export function mcpRoutes(ctx: AppContext, o: McpRoutesOptions): FastifyPluginAsync {
  return async (app) => {
    const resourceMetadataUrl = () => `${ctx.actions.publicUrl}${PROTECTED_RESOURCE_PATH}`;
    const challenge = () => `Bearer resource_metadata="${resourceMetadataUrl()}"`;

    /** The caller of a message, as the route authenticated it (authInfo.extra). */
    const callerOf = (authInfo: AuthInfo | undefined): Caller => {
      const caller = (authInfo as (AuthInfo & { extra?: { caller?: Caller } }) | undefined)?.extra?.caller;
      if (!caller) throw new Error('unauthenticated MCP request reached the handler');
      return caller;
    };
    /** The API the tools use, as the caller: the routes in-process, SQL through the SQL endpoints' handler. */
    const apiOf = (caller: Caller): Required<McpApi> => ({
      ...injectApi({
        app: o.root(),
        basePath: o.apiBasePath,
        authorization: `ApiKey ${caller.apiKey}`,
        remoteAddress: caller.ip,
      }),
      sql: sqlApi(ctx, caller),
    });
    const build = (caller: Caller, era: 'legacy' | 'modern') => (api: McpApi) =>
      createExpenseMcpServer({
        api,
        // The key's consent shapes the tool list too: a read key gets no execute tool, a bound key is pinned.
        readOnly: caller.principal.access === 'read',
        ...(caller.principal.workspaceId ? { pinnedWorkspaceId: caller.principal.workspaceId } : {}),
        era,
        // Stateless HTTP: a 2025-era elicitation answer would reach another instance; the 2026 one is fine.
        pushElicitation: false,
        version: SERVER_VERSION,
      });
    // What shapes an instance's tool list: the pool's key.
    const shapeOf = (caller: Caller) =>
      `${caller.principal.access === 'read' ? 'read' : 'write'}:${caller.principal.workspaceId ?? '*'}`;
    const pool = new ServerPool();
    const leaseFor = (authInfo: AuthInfo) => {
      const caller = callerOf(authInfo);
      return pool.lease(shapeOf(caller), apiOf(caller), build(caller, 'legacy'));
    };
    // 2026-07-28: the SDK's handler asks its factory for an instance per message; it gets a pooled one, returned
    // by the route once the answer is out (issue 39: building one per message cost 1.4-1.7x of the route).
    const modernPool = new ServerPool();
    const modernLeases = new WeakMap<Request, DetachedLease>();
    const factory = (mcpCtx: McpRequestContext) => {
      const caller = callerOf(mcpCtx.authInfo);
      const lease = modernPool.leaseDetached(shapeOf(caller), apiOf(caller), build(caller, mcpCtx.era));
      if (mcpCtx.requestInfo) modernLeases.set(mcpCtx.requestInfo, lease);
      return lease.server;
    };
    const onerror = (error: Error) => app.log.warn({ err: error }, 'mcp: handler error');
    // The 2026-07-28 revision through the SDK's handler; 2025-era requests answered in JSON (legacy.ts).
    const modern = createMcpHandler(factory, { legacy: 'reject', onerror });
    const legacy = legacyJsonHandler(leaseFor, onerror);
    app.addHook('onClose', async () => {
      await Promise.all([modern.close(), pool.close(), modernPool.close()]);
    });

    // Not JSON API routes of /v1: kept out of the OpenAPI document (docs/mcp.md describes them). The metadata
    // is served at the root well-known path too, for clients that look there first.
    const protectedResource = async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return {
        resource: `${ctx.actions.publicUrl}/mcp`,
        resource_name: 'expense MCP',
        authorization_servers: [ctx.actions.publicUrl],
        bearer_methods_supported: ['header'],
        scopes_supported: [...SCOPES],
        resource_documentation: `${ctx.actions.publicUrl}/v1/`,
      };
    };
    app.get(PROTECTED_RESOURCE_PATH, { schema: { hide: true } }, protectedResource);
    app.get('/.well-known/oauth-protected-resource', { schema: { hide: true } }, protectedResource);

    async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Caller> {
      const header = request.headers.authorization;
      if (header === undefined || header.trim() === '') {
        throw new ApiError(
          'missing_api_key',
          'This endpoint needs `Authorization: ApiKey <key>` or `Bearer <key>`.',
          {
            headers: { 'www-authenticate': challenge() },
          },
        );
      }
      const match = CREDENTIALS.exec(header);
      const principal = await verifyKey(ctx, match?.[1], request.ip);
      if (!principal) {
        throw await invalidKeyError(ctx, match?.[1], 'The key is not valid.', {
          headers: { 'www-authenticate': `${challenge()}, error="invalid_token"` },
        });
      }
      return {
        principal,
        apiKey: match![1]!,
        ip: request.ip,
        requestId: request.id,
        log: request.log,
        signal: clientGone(reply.raw),
      };
    }

    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/mcp',
      schema: { hide: true },
      handler: async (request, reply) => {
        // Every JSON-RPC message spends a point of the key's limits (tools/list and pings too); the API calls a
        // tool makes spend theirs as over HTTP. One message per request: batches were removed in 2025-06-18.
        const caller = await authenticate(request, reply);
        try {
          await applyKeyLimits(ctx.keyLimits, caller.principal.connectionId, reply);
        } catch (error) {
          // A tool call over the key's limit is answered as the tool's error result (rate_limited, when to retry),
          // which every client reads, rather than an HTTP 429 its transport throws; other messages get the 429.
          const id = toolCallId(request.body);
          if (id === undefined || !isApiError(error)) throw error;
          const envelope = failure(error, ctx.actions);
          const result = apiErrorResult(new McpApiError(error.status, envelope.error, envelope.actions));
          reply.headers(error.options.headers ?? {});
          // The 2026-07-28 revision's results say they are complete (its clients refuse one that does not).
          const modern = !isLegacy(request.method, headersOf(request), request.body);
          return { jsonrpc: '2.0', id, result: modern ? { ...result, resultType: 'complete' } : result };
        }
        if (Array.isArray(request.body)) {
          return reply.code(400).send({
            jsonrpc: '2.0',
            id: null,
            error: {
              code: -32600,
              message:
                'JSON-RPC batches are not supported (the 2025-06-18 revision removed them): send one message per request.',
            },
          });
        }
        const authInfo: AuthInfo & { extra: { caller: Caller } } = {
          token: 'redacted',
          clientId: caller.principal.connectionId,
          scopes: [],
          extra: { caller },
        };
        const headers = headersOf(request);
        if (isLegacy(request.method, headers, request.body)) {
          const answer = await legacy({ method: request.method, headers, body: request.body, authInfo });
          reply.code(answer.status);
          if (answer.headers) reply.headers(answer.headers);
          return answer.body === undefined ? reply.send() : reply.send(answer.body);
        }
        const webRequest = new Request(`${ctx.actions.publicUrl}/mcp`, {
          method: request.method,
          headers: webHeadersOf(request),
        });
        const response = await modern.fetch(webRequest, {
          authInfo,
          ...(request.body !== undefined ? { parsedBody: request.body } : {}),
        });
        const streamed = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
        // A JSON answer is complete: its handler ran to the end. A stream may still be written by it.
        modernLeases.get(webRequest)?.release(!streamed && response.status !== 499);
        reply.code(response.status);
        response.headers.forEach((value, name) => {
          reply.header(name, value);
        });
        if (!response.body) return reply.send();
        if (streamed) {
          return reply.send(Readable.fromWeb(response.body as unknown as WebReadableStream));
        }
        return reply.send(await bytesOf(response.body));
      },
    });
  };
}
