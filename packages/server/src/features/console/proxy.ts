import type { ServerResponse } from 'node:http';
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
 * light-my-request's inner answer also writes every piece it sends to a socket of its own that discards one piece
 * per turn of the event loop (`setImmediate`); an answer streamed faster than that piles up there, whatever the
 * reader's pace (measured: 18 MB held of a 20 MB export). For a streamed answer the proxy makes that socket
 * discard at once, so what the proxy holds is the stream's few chunks.
 */
function discardAtOnce(inner: ServerResponse): void {
  if (inner.socket) inner.socket._write = (_chunk, _encoding, done) => done();
}

/**
 * `/console/api/<path>` → `/v1/<path>` of this server (`app.inject`), with `Authorization: ApiKey <session
 * key>`: the same authentication, limits, guard and request log as any API call of that key. Without a
 * session no Authorization is sent, so the API's own 401 answers. The Origin check ran before (onRequest). An
 * error answer reaches the page in the console's words (words.ts), the catalogue's texts for a person.
 *
 * The inner answer is read as a stream (`payloadAsStream`): an answer the API sent whole (it has a
 * Content-Length, as every envelope does), a 204 and any error are read whole and sent on; an answer the API streams (an
 * export) is passed on as it comes, with the API's backpressure, so the proxy holds a few chunks of it, never the
 * whole file. A browser that goes away mid-download ends the inner answer too, which stops the export.
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
    payloadAsStream: true,
    ...(Buffer.isBuffer(body) ? { payload: body } : {}),
  });
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    reply.header(name, value);
  }
  const stream = response.stream();
  // Fastify destroys a stream it sends when the browser goes away; the inner answer then ends too (the API's own
  // stream, an export, is destroyed with it). After a whole answer this does nothing: the inner one has ended.
  stream.once('close', () => response.raw.res.destroy());
  const status = response.statusCode;
  const whole = response.headers['content-length'] !== undefined || status === 204 || status >= 300;
  if (!whole) {
    discardAtOnce(response.raw.res);
    return reply.code(status).send(stream);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const payload = Buffer.concat(chunks);
  const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
  const worded = status >= 400 && json ? inConsoleWords(payload) : undefined;
  return reply.code(status).send(worded ?? payload);
}
