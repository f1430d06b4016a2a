// One HTTP request to a server under test, over a real socket (fetch), with the ApiKey and JSON body the
// tests send; and the same as a Client whose headers are a plain record.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the tests assert on field by field
export type Json = any;

export interface RequestOptions {
  /** Sent as `Authorization: ApiKey <key>`. */
  key?: string;
  /** Sent as JSON (with content-type application/json unless headers set one). */
  body?: unknown;
  /** Sent as is, instead of body. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Response {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when it is not JSON. */
  body: Json;
  text: string;
}

/** The request's headers and payload: the ApiKey, and JSON unless rawBody is given. */
export function requestInit(options: RequestOptions): {
  headers: Record<string, string>;
  payload: string | Uint8Array | undefined;
} {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `ApiKey ${options.key}`;
  let payload: string | Uint8Array | undefined = options.rawBody;
  if (payload === undefined && options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  return { headers, payload };
}

export async function request(
  origin: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const { headers, payload } = requestInit(options);
  const res = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await res.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A response whose headers are a record and whose body is parsed only when it says it is JSON. */
export interface ClientResponse {
  status: number;
  headers: Record<string, string>;
  body: Json;
}

/** A uniform way to call an app, by fastify's inject or over a real socket. */
export interface Client {
  request(method: string, path: string, options?: RequestOptions): Promise<ClientResponse>;
}

/** Parses text as JSON when the content type says JSON (and there is text). */
export function bodyOf(text: string, contentType: string | undefined): Json {
  return text && (contentType ?? '').includes('json') ? JSON.parse(text) : text;
}

/** A Client over a real socket to `origin` (e.g. http://127.0.0.1:43117). */
export function socketClient(origin: string): Client {
  return {
    async request(method, path, options = {}) {
      const res = await request(origin, method, path, options);
      return {
        status: res.status,
        headers: Object.fromEntries(res.headers.entries()),
        body: bodyOf(res.text, res.headers.get('content-type') ?? undefined),
      };
    },
  };
}
