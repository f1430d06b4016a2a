import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { expect } from 'vitest';
import { createServer, type ServerConfigInput } from '../../src/index.js';

export const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh PostgreSQL database for one test file; drop() removes it. */
export async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `expense_http_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function tempDir(prefix = 'expense-http-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

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

export interface OutboxMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

/** The newest mail to an address in the outbox directory. */
export async function lastMailTo(outbox: string, to: string): Promise<OutboxMail> {
  const files = (await readdir(outbox)).filter((f) => f.endsWith('.json')).sort();
  const mails = await Promise.all(
    files.map(async (f) => JSON.parse(await readFile(join(outbox, f), 'utf8')) as OutboxMail),
  );
  const mine = mails.filter((m) => m.to === to).sort((a, b) => a.sentAt.localeCompare(b.sentAt));
  const mail = mine.at(-1);
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail;
}

export function codeOf(mail: OutboxMail): string {
  const match = /\b(\d{8})\b/.exec(mail.subject);
  if (!match) throw new Error('no code in the subject');
  return match[1]!;
}

export interface SignedIn {
  apiKey: string;
  user: { userId: string; email: string };
  connection: { connectionId: string };
}

/** The sign-in flow (send-code, the code from the outbox, verify-code) for a new key labelled `label`. */
export async function signIn(c: Client, outbox: string, email: string, label = 'laptop'): Promise<SignedIn> {
  const sent = await c.request('POST', '/api/agent/send-code', { body: { email } });
  expect(sent.status).toBe(200);
  const code = codeOf(await lastMailTo(outbox, email.toLowerCase()));
  const verified = await c.request('POST', '/api/agent/verify-code', {
    body: { code, otpSessionToken: sent.body.data.otpSessionToken, label },
  });
  expect(verified.status).toBe(200);
  return verified.body.data as SignedIn;
}

/** A uniform way to call the app, by inject or over a real socket. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the tests assert on field by field
type Json = any;

export interface Client {
  request(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string; headers?: Record<string, string>; rawBody?: string },
  ): Promise<{ status: number; headers: Record<string, string>; body: Json }>;
}

export function injectClient(app: FastifyInstance): Client {
  return {
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `ApiKey ${options.key}`;
      let payload: string | undefined;
      if (options.rawBody !== undefined) payload = options.rawBody;
      else if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      const text = res.body;
      return {
        status: res.statusCode,
        headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
        body: text && res.headers['content-type']?.toString().includes('json') ? JSON.parse(text) : text,
      };
    },
  };
}

export function socketClient(origin: string): Client {
  return {
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `ApiKey ${options.key}`;
      let body: string | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${origin}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: Object.fromEntries(res.headers.entries()),
        body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
      };
    },
  };
}

export async function startServer(config: ServerConfigInput, logs?: LogCapture): Promise<FastifyInstance> {
  return createServer({ logLevel: 'info', ...config }, logs ? { logStream: logs } : {});
}
