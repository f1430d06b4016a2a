import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { sessionKeyOf } from './session.js';
import { inConsoleWords } from './words.js';

/** Request headers the console's calls carry to the API (the change group's: an import is one entry of Activity). */
const FORWARDED_REQUEST = [
  'accept',
  'content-type',
  'x-workspace-id',
  'idempotency-key',
  'x-change-group',
  'x-change-label',
];
/** Response headers that must not be copied from the inner response. */
const HOP_BY_HOP = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'set-cookie']);

/**
 * The API address of a proxied request: the raw URL's segments after those of the proxy's route (the route
 * Fastify matched, `<proxyBase>/*`), kept as sent (still percent-encoded), with the query. Counting segments,
 * not characters, keeps it right for any spelling of the route's own part (`/%63onsole/api/me` is `/v1/me`).
 */
export function apiUrl(apiBase: string, proxyBase: string, rawUrl: string): string {
  const query = rawUrl.indexOf('?');
  const path = query < 0 ? rawUrl : rawUrl.slice(0, query);
  const rest = path.split('/').slice(proxyBase.split('/').length).join('/');
  return `${apiBase}/${rest}${query < 0 ? '' : rawUrl.slice(query)}`;
}

/**
 * `/console/api/<path>` → `/v1/<path>` of this server (`app.inject`), with `Authorization: ApiKey <session
 * key>`: the same authentication, limits, guard and request log as any API call of that key. Without a
 * session no Authorization is sent, so the API's own 401 answers. The Origin check ran before (onRequest). An
 * error answer reaches the page in the console's words (words.ts), the catalogue's texts for a person.
 */
export async function proxyToApi(
  ctx: AppContext,
  app: FastifyInstance,
  apiBase: string,
  proxyBase: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const key = sessionKeyOf(ctx, request);
  if (key) headers.authorization = `ApiKey ${key}`;
  const body = request.body;
  const response = await app.inject({
    method: request.method as 'GET',
    url: apiUrl(apiBase, proxyBase, request.url),
    headers,
    remoteAddress: request.ip,
    ...(Buffer.isBuffer(body) ? { payload: body } : {}),
  });
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    reply.header(name, value);
  }
  const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
  const worded = response.statusCode >= 400 && json ? inConsoleWords(response.rawPayload) : undefined;
  return reply.code(response.statusCode).send(worded ?? response.rawPayload);
}
