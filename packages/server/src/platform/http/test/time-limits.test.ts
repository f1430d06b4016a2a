// Issue 35, item 4: how long a client may take to send a request (EXPENSE_REQUEST_TIMEOUT_MS, and
// EXPENSE_CONNECTION_TIMEOUT_MS for a new connection), over real sockets on 127.0.0.1 with small limits. What is
// asserted is what the socket got (an answer, a 408, a close), never how long it took.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { resolve } from 'node:path';
import { routePath } from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Live, startLive } from '../../../features/sql/test/setup.js';
import { parseConfig } from '../../config/config.js';
import { httpTimeouts } from '../timeouts.js';

const BIN = resolve(import.meta.dirname, '../../../../dist/bin.js');
const CONNECTION_MS = 300;
const REQUEST_MS = 1_500;

interface Outcome {
  /** Everything the server wrote. */
  text: string;
  /** The server closed the connection (false: still open when the probe gave up). */
  closed: boolean;
}

/**
 * Opens a connection, writes `parts` (each after its delay in ms, counted from the connection) and collects what
 * comes back until the server closes it, or gives up after `giveUpMs` with the socket still open.
 */
function probe(port: number, parts: [number, string][], giveUpMs: number): Promise<Outcome> {
  return new Promise((done) => {
    let text = '';
    const timers: NodeJS.Timeout[] = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      for (const [delay, part] of parts) timers.push(setTimeout(() => socket.write(part), delay));
    });
    const finish = (closed: boolean) => {
      for (const t of timers) clearTimeout(t);
      socket.destroy();
      done({ text, closed });
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    timers.push(setTimeout(() => finish(false), giveUpMs));
  });
}

const statusOf = (text: string) => /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

const SEND_CODE = (length: number) =>
  `POST ${routePath(AGENT_ROUTES.sendCode)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe.each(ENGINES.slice(0, 1))('HTTP time limits on a server ($name)', (engine) => {
  let live: Live;
  let port: number;

  beforeAll(async () => {
    live = await startLive(engine, { requestTimeoutMs: REQUEST_MS, connectionTimeoutMs: CONNECTION_MS });
    port = Number(new URL(live.origin).port);
  }, 120_000);
  afterAll(async () => live?.close());

  it('gives Node the configured limits, headers within the whole request', () => {
    expect(live.app.server.requestTimeout).toBe(REQUEST_MS);
    expect(live.app.server.headersTimeout).toBe(CONNECTION_MS);
    expect(live.app.server.timeout).toBe(0);
  });

  it('answers a body that stops half-way with 408 request_timeout and closes the connection', async () => {
    const body = '{"email":"slow@example.test"}';
    const outcome = await probe(port, [[0, `${SEND_CODE(body.length)}${body.slice(0, 9)}`]], REQUEST_MS * 10);
    expect(outcome.closed).toBe(true);
    expect(statusOf(outcome.text)).toBe('408');
    const envelope = envelopeOf(outcome.text);
    expect(envelope).toMatchObject({ ok: false, error: { code: 'request_timeout', retryable: true } });
    expect(envelope.error.hint).toMatch(/send the whole request/);
  });

  it('closes a connection that sends nothing, and one whose headers stop half-way', async () => {
    const [idle, headers] = await Promise.all([
      probe(port, [], REQUEST_MS * 10),
      probe(
        port,
        [[0, `POST ${routePath(AGENT_ROUTES.sendCode)} HTTP/1.1\r\nHost: 127.0.0.1\r\n`]],
        REQUEST_MS * 10,
      ),
    ]);
    expect(idle.closed).toBe(true);
    expect(['408', undefined]).toContain(statusOf(idle.text));
    expect(headers.closed).toBe(true);
    expect(statusOf(headers.text)).toBe('408');
  });

  it('serves complete requests as before: a body sent slowly within the limit, and a kept-alive connection', async () => {
    const body = '{"email":"patient@example.test"}';
    // The rest of the body comes after the connection timeout but well within the request's.
    const slow = await probe(
      port,
      [
        [0, `${SEND_CODE(body.length)}${body.slice(0, 9)}`],
        [CONNECTION_MS * 2, `${body.slice(9)}`],
      ],
      REQUEST_MS * 10,
    );
    expect(statusOf(slow.text), slow.text).toBe('200');
    expect(slow.text).not.toContain('request_timeout');
    expect(slow.closed).toBe(true);

    const get = `GET ${routePath(API_ROUTES.health)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    // Two requests on one connection, the second after an idle pause longer than both limits.
    const kept = await probe(
      port,
      [
        [0, get],
        [REQUEST_MS + CONNECTION_MS, `${get.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`],
      ],
      REQUEST_MS * 10,
    );
    expect(kept.text.match(/HTTP\/1\.1 200/g), kept.text).toHaveLength(2);
    // Not "408" anywhere: a request id in the answer may hold those digits.
    expect(kept.text).not.toMatch(/HTTP\/1\.1 408|request_timeout/);
    expect(kept.closed).toBe(true);
  });
});

describe('the time limits leave answers alone', () => {
  const LIMIT = 200;
  const app = Fastify(httpTimeouts({ requestTimeoutMs: LIMIT, connectionTimeoutMs: LIMIT }));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  app.get('/slow', async () => {
    await sleep(LIMIT * 5);
    return { answered: true };
  });
  app.get('/stream', (_request, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
    void (async () => {
      for (let i = 0; i < 3; i++) {
        reply.raw.write(`data: ${i}\n\n`);
        await sleep(LIMIT * 3);
      }
      reply.raw.end('data: end\n\n');
    })();
  });
  let port: number;

  beforeAll(async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => app.close());

  it('an answer that takes longer than the request limit, silent or streamed, arrives whole', async () => {
    const ask = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
    const [slow, stream] = await Promise.all([
      probe(port, [[0, ask('/slow')]], LIMIT * 50),
      probe(port, [[0, ask('/stream')]], LIMIT * 50),
    ]);
    expect(statusOf(slow.text)).toBe('200');
    expect(slow.text).toContain('{"answered":true}');
    expect(statusOf(stream.text)).toBe('200');
    expect(stream.text).toContain('data: 2');
    expect(stream.text).toContain('data: end');
  });
});

describe('configuring the limits', () => {
  it('takes both from the configuration object, with the defaults of config.md', () => {
    expect(parseConfig({})).toMatchObject({ requestTimeoutMs: 30_000, connectionTimeoutMs: 10_000 });
    expect(parseConfig({ requestTimeoutMs: 5_000, connectionTimeoutMs: 1_000 })).toMatchObject({
      requestTimeoutMs: 5_000,
      connectionTimeoutMs: 1_000,
    });
    expect(httpTimeouts(parseConfig({})).http).toEqual({
      requestTimeout: 30_000,
      headersTimeout: 10_000,
      connectionsCheckingInterval: 1_000,
    });
  });

  it('refuses values that are not limits, naming the variable', () => {
    for (const [input, problem] of [
      [{ requestTimeoutMs: 0 }, /EXPENSE_REQUEST_TIMEOUT_MS/],
      [{ requestTimeoutMs: 'soon' }, /EXPENSE_REQUEST_TIMEOUT_MS/],
      [{ connectionTimeoutMs: 30 }, /EXPENSE_CONNECTION_TIMEOUT_MS/],
      [{ connectionTimeoutMs: 1.5e9 }, /EXPENSE_CONNECTION_TIMEOUT_MS/],
      [{ requestTimeoutMs: 5_000, connectionTimeoutMs: 6_000 }, /must not exceed EXPENSE_REQUEST_TIMEOUT_MS/],
    ] as const) {
      expect(() => parseConfig(input as never), JSON.stringify(input)).toThrow(problem);
    }
  });

  it('expense-server start refuses a bad flag or variable before it opens anything, exit 1', () => {
    if (!existsSync(BIN)) throw new Error('build the server first: pnpm --filter @expense/server... build');
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, [BIN, 'start', ...args], {
        env: { PATH: process.env.PATH, EXPENSE_PORT: '0', DATABASE_URL: 'memory://', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const flag = run(['--request-timeout-ms', 'soon']);
    expect(flag.status).toBe(1);
    expect(flag.stderr).toMatch(/invalid configuration: EXPENSE_REQUEST_TIMEOUT_MS/);
    const variable = run([], { EXPENSE_CONNECTION_TIMEOUT_MS: '40000' });
    expect(variable.status).toBe(1);
    expect(variable.stderr).toMatch(/EXPENSE_CONNECTION_TIMEOUT_MS \(40000\) must not exceed/);
  });
});
