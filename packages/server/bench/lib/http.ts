import { Agent, request } from 'node:http';
import { API_PREFIX, fillPath, type QueryValues, type RoutePath } from '@expense/wire/route-paths';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON that the harness checks field by field
export type Json = any;

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the response says JSON, else the text. */
  body: Json;
  text: string;
  /** Milliseconds from sending to the last byte. */
  ms: number;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding, no content-type unless given). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** Keep-alive connections, as a real client holds them. */
export const agent = new Agent({ keepAlive: true, maxSockets: 512 });

/** One HTTP request to a 127.0.0.1 server; rejects only on network errors and timeouts. */
export function call(
  origin: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `ApiKey ${options.key}`;
  let payload: string | Buffer | undefined = options.rawBody;
  if (payload === undefined && options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  // Always framed by Content-Length: Node sends DELETE/OPTIONS bodies unframed otherwise, which the server
  // would read as the start of the next request.
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  const url = new URL(path, origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to call ${url.hostname}: 127.0.0.1 only`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent, timeout: options.timeoutMs ?? 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Json = text;
        if (String(res.headers['content-type'] ?? '').includes('json') && text) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          text,
          ms: performance.now() - started,
        });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${options.timeoutMs ?? 60_000} ms`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** A route's full path: API_PREFIX and its template (@expense/wire's ROUTE_PATHS) filled with params and query. */
export function apiPath(route: RoutePath, params?: Record<string, string>, query?: QueryValues): string {
  return `${API_PREFIX}${fillPath(route.path, params, query)}`;
}

/** call for a route of the table: its method, and its path filled with the params and the query. */
export function callRoute(
  origin: string,
  route: RoutePath,
  options: CallOptions & { params?: Record<string, string>; query?: QueryValues } = {},
): Promise<HttpResponse> {
  const { params, query, ...rest } = options;
  return call(origin, route.method, apiPath(route, params, query), rest);
}

/** The failure or success envelope of http-api.md, checked structurally; returns what is wrong, if anything. */
export function envelopeProblem(res: HttpResponse): string | undefined {
  const b = res.body;
  if (res.status === 204) return res.text === '' ? undefined : '204 with a body';
  if (typeof b !== 'object' || b === null) return `not JSON: ${res.text.slice(0, 80)}`;
  if (!res.headers['x-request-id']) return 'no X-Request-Id';
  if (!Array.isArray(b.instructions) || !Array.isArray(b.actions)) return 'no instructions/actions';
  if (res.status < 400) return b.ok === true && 'data' in b ? undefined : 'success without ok/data';
  if (b.ok !== false || typeof b.error !== 'object' || b.error === null)
    return 'failure without ok:false/error';
  const e = b.error;
  if (typeof e.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(e.code)) return `bad error code ${e.code}`;
  if (typeof e.message !== 'string' || typeof e.retryable !== 'boolean')
    return 'error without message/retryable';
  if (/\bat .+:\d+:\d+\)?/.test(res.text)) return 'a stack trace in the body';
  return undefined;
}
