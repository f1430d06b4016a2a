import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';

/** The timeouts of one request: connecting, and the longest silence while waiting for the answer. */
export interface TransportTimeouts {
  connectMs: number;
  idleMs: number;
}

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  /** JSON text, or bytes as they are (an import's file). */
  body?: string | Uint8Array | undefined;
}

export interface TransportResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A failure before an answer came: its `code` is Node's (ECONNREFUSED, ETIMEDOUT, ECONNRESET ...). */
export class TransportError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/**
 * HTTP/1.1 with keep-alive over Node's own http and https modules (already in the runtime: nothing to load
 * at start-up), connections reused by the calls of a command (import batches, --all pages). The https module
 * (and TLS with it) is loaded by the first https URL only.
 */
export class Transport {
  private readonly http = new HttpAgent({ keepAlive: true });
  private httpsAgent: HttpsAgent | undefined;

  constructor(private readonly timeouts: TransportTimeouts) {}

  send(url: string, spec: TransportRequest): Promise<TransportResponse> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const headers = { ...spec.headers };
    if (spec.body !== undefined) headers['content-length'] = String(Buffer.byteLength(spec.body));
    return new Promise((resolve, reject) => {
      const https = secure ? process.getBuiltinModule('node:https') : undefined;
      if (https) this.httpsAgent ??= new https.Agent({ keepAlive: true });
      const agent = https ? this.httpsAgent : this.http;
      const req = (https ? https.request : httpRequest)(
        target,
        { method: spec.method, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error: NodeJS.ErrnoException) =>
            reject(new TransportError(error.code ?? 'ECONNRESET', error.message)),
          );
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      const fail = (code: string, message: string) => {
        req.destroy();
        reject(new TransportError(code, message));
      };
      req.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'network error', error.message));
      req.setTimeout(this.timeouts.idleMs, () => fail('ETIMEDOUT', 'no answer in time'));
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => fail('ETIMEDOUT', 'connect timed out'), this.timeouts.connectMs);
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      req.end(spec.body);
    });
  }

  close(): void {
    this.http.destroy();
    this.httpsAgent?.destroy();
  }
}
