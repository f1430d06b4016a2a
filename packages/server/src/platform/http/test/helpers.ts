// What the HTTP tests share beyond @expense/test-kit: fastify's inject as a Client, and captured log lines.
import { Writable } from 'node:stream';
import { bodyOf, type Client, requestInit } from '@expense/test-kit';
import type { FastifyInstance } from 'fastify';
import { createServer, type ServerConfigInput } from '../../../index.js';

/** Collects the JSON log lines of a server. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export function injectClient(app: FastifyInstance): Client {
  return {
    async request(method, path, options = {}) {
      const { headers, payload: raw } = requestInit(options);
      const payload = raw === undefined || typeof raw === 'string' ? raw : Buffer.from(raw);
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      return {
        status: res.statusCode,
        headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
        body: bodyOf(res.body, res.headers['content-type']?.toString()),
      };
    },
  };
}

export async function startServer(config: ServerConfigInput, logs?: LogCapture): Promise<FastifyInstance> {
  return createServer({ logLevel: 'info', ...config }, logs ? { logStream: logs } : {});
}
