// Sign-in cannot be blocked from elsewhere (issue 11, finding 5): a newer code never voids an older challenge,
// send-code limits are per address AND client address, and unknown ApiKeys are limited per client address.
// Real HTTP on both engines; client addresses come from X-Forwarded-For behind a trusted proxy.
import {
  type Client,
  call,
  codeOf,
  ENGINES,
  lastMailTo,
  removeDir,
  routePath,
  socketClient,
  tempDir,
} from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startLive } from '../../sql/test/setup.js';

describe.each(ENGINES)('sign-in limits on $name', (engine) => {
  let live: Live;
  let outbox: string;
  let c: Client;

  beforeAll(async () => {
    outbox = await tempDir();
    live = await startLive(engine, { mailOutbox: outbox }, { trustProxy: true });
    c = socketClient(live.origin);
  });

  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const sendCode = (email: string, ip: string) =>
    c.request('POST', routePath(AGENT_ROUTES.sendCode), { body: { email }, headers: from(ip) });
  const verify = (code: string, otpSessionToken: string, ip: string) =>
    c.request('POST', routePath(AGENT_ROUTES.verifyCode), {
      body: { code, otpSessionToken, label: 'laptop' },
      headers: from(ip),
    });

  it("attack: five send-codes from another client address no longer block the victim's sign-in", async () => {
    for (let i = 0; i < 5; i++) {
      expect(
        (await sendCode(i % 2 ? 'VICTIM@example.com' : 'victim@example.com', '203.0.113.66')).status,
      ).toBe(200);
    }
    const blocked = await sendCode('victim@Example.COM', '203.0.113.66');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);

    const mine = await sendCode('victim@example.com', '198.51.100.7');
    expect(mine.status).toBe(200);
    const signedIn = await verify(
      codeOf(await lastMailTo(outbox, 'victim@example.com')),
      mine.body.data.otpSessionToken,
      '198.51.100.7',
    );
    expect(signedIn.status).toBe(200);
  });

  it('attack: an old challenge still verifies after a new send-code', async () => {
    const first = await sendCode('patient@example.com', '198.51.100.8');
    const firstCode = codeOf(await lastMailTo(outbox, 'patient@example.com'));
    const second = await sendCode('patient@example.com', '203.0.113.9'); // someone else's send-code
    expect(second.status).toBe(200);
    const ok = await verify(firstCode, first.body.data.otpSessionToken, '198.51.100.8');
    expect(ok.status).toBe(200);
    // Each code is bound to its own session: one challenge's code does not open the other.
    const secondCode = codeOf(await lastMailTo(outbox, 'patient@example.com'));
    if (secondCode !== firstCode) {
      const crossed = await verify(firstCode, second.body.data.otpSessionToken, '198.51.100.8');
      expect(crossed.body.error.code).toBe('invalid_code');
    }
    expect((await verify(secondCode, second.body.data.otpSessionToken, '198.51.100.8')).status).toBe(200);
    // A used session stays used.
    expect((await verify(firstCode, first.body.data.otpSessionToken, '198.51.100.8')).body.error.code).toBe(
      'invalid_otp_session',
    );
  });

  it('limits an address to 20 codes an hour from all clients together', async () => {
    for (let client = 0; client < 4; client++) {
      for (let i = 0; i < 5; i++) {
        expect((await sendCode('popular@example.com', `192.0.2.${client + 10}`)).status).toBe(200);
      }
    }
    const limited = await sendCode('popular@example.com', '192.0.2.99');
    expect(limited.status).toBe(429);
    expect(limited.body.error.details).toMatchObject({ limit: 20, windowSeconds: 3600 });
  });

  it('limits a client address to 30 codes an hour', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await sendCode(`someone-${i}@example.com`, '192.0.2.200')).status).toBe(200);
    }
    const limited = await sendCode('someone-else@example.com', '192.0.2.200');
    expect(limited.status).toBe(429);
    expect(limited.body.error.details).toMatchObject({ limit: 30, windowSeconds: 3600 });
    expect((await sendCode('someone-else@example.com', '192.0.2.201')).status).toBe(200);
  });

  it('attack: send-codes from every address of one IPv6 /64 share the 30 codes an hour of one client', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await sendCode(`v6-${i}@example.com`, `2001:db8:9:9::${(i + 1).toString(16)}`)).status).toBe(
        200,
      );
    }
    const limited = await sendCode('v6-else@example.com', '2001:db8:9:9:abcd::1');
    expect(limited.status).toBe(429);
    expect(limited.body.error.details).toMatchObject({ limit: 30, windowSeconds: 3600 });
    expect((await sendCode('v6-else@example.com', '2001:db8:9:a::1')).status).toBe(200);
  });

  it("attack: the console's sign-in form counts an IPv6 /64 as one client, like the API", async () => {
    // The Origin the console's form must carry: the server's public origin.
    const origin = new URL((await call(c, API_ROUTES.discovery)).body.data.apiBaseUrl).origin;
    const consoleSendCode = (email: string, ip: string) =>
      c.request('POST', '/console/sign-in', {
        rawBody: new URLSearchParams({ email }).toString(),
        headers: { ...from(ip), origin, 'content-type': 'application/x-www-form-urlencoded' },
      });
    for (let i = 0; i < 30; i++) {
      const sent = await consoleSendCode(
        `console-v6-${i}@example.com`,
        `2001:db8:7:7::${(i + 1).toString(16)}`,
      );
      expect(sent.status).toBe(200);
    }
    const limited = await consoleSendCode('console-v6-else@example.com', '2001:db8:7:7:abcd::1');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    // The API's send-code shares the same budget of the /64.
    expect((await sendCode('console-v6-api@example.com', '2001:db8:7:7::ffff')).status).toBe(429);
    expect((await consoleSendCode('console-v6-else@example.com', '2001:db8:7:8::1')).status).toBe(200);
  });

  it('attack: OAuth client registrations from every address of one IPv6 /64 share one budget', async () => {
    const register = (ip: string) =>
      c.request('POST', '/oauth/register', {
        body: { client_name: 'Flood', redirect_uris: ['http://127.0.0.1:9/callback'] },
        headers: from(ip),
      });
    for (let i = 0; i < 20; i++) expect((await register(`2001:db8:8:8::${i + 1}`)).status).toBe(201);
    expect((await register('2001:db8:8:8:ffff::1')).status).toBe(429);
    expect((await register('2001:db8:8:9::1')).status).toBe(201);
  });

  it('limits unknown well-formed ApiKeys per client address, without touching valid cached keys', async () => {
    const sent = await sendCode('keeper@example.com', '192.0.2.50');
    const signedIn = await verify(
      codeOf(await lastMailTo(outbox, 'keeper@example.com')),
      sent.body.data.otpSessionToken,
      '192.0.2.50',
    );
    const key: string = signedIn.body.data.apiKey;
    expect(
      (await c.request('GET', routePath(API_ROUTES.me), { key, headers: from('192.0.2.50') })).status,
    ).toBe(200);

    const guess = (i: number) => `exp_live_${String(i).padStart(43, 'A')}`;
    for (let i = 0; i < 20; i++) {
      const res = await c.request('GET', routePath(API_ROUTES.me), {
        key: guess(i),
        headers: from('192.0.2.50'),
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    // Past the budget an unknown key is refused after its (batched) lookup missed.
    const more = await c.request('GET', routePath(API_ROUTES.me), {
      key: guess(20),
      headers: from('192.0.2.50'),
    });
    expect(more.status).toBe(429);
    expect(more.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(Number(more.headers['retry-after'])).toBeGreaterThan(0);
    // The valid key keeps working from the same client; other clients are not affected.
    expect(
      (await c.request('GET', routePath(API_ROUTES.me), { key, headers: from('192.0.2.50') })).status,
    ).toBe(200);
    const elsewhere = await c.request('GET', routePath(API_ROUTES.me), {
      key: guess(21),
      headers: from('192.0.2.51'),
    });
    expect(elsewhere.status).toBe(401);
    // Malformed keys cost no lookup and are not counted.
    const malformed = await c.request('GET', routePath(API_ROUTES.me), {
      key: 'nope',
      headers: from('192.0.2.52'),
    });
    expect(malformed.body.error.code).toBe('invalid_api_key');
  });

  it('attack: unknown keys from a shared address no longer lock out a new, uncached valid key there', async () => {
    const office = '192.0.2.60';
    const guess = (i: number) => `exp_live_${String(i).padStart(43, 'B')}`;
    for (let i = 0; i < 25; i++) {
      await c.request('GET', routePath(API_ROUTES.me), { key: guess(i), headers: from(office) });
    }
    expect(
      (await c.request('GET', routePath(API_ROUTES.me), { key: guess(99), headers: from(office) })).body.error
        .code,
    ).toBe('rate_limited');
    // A colleague behind the same address signs in now: the new key was never seen by the cache.
    const sent = await sendCode('colleague@example.com', office);
    expect(sent.status).toBe(200);
    const signedIn = await verify(
      codeOf(await lastMailTo(outbox, 'colleague@example.com')),
      sent.body.data.otpSessionToken,
      office,
    );
    const key: string = signedIn.body.data.apiKey;
    const me = await c.request('GET', routePath(API_ROUTES.me), { key, headers: from(office) });
    expect(me.status).toBe(200);
    // Many at once, interleaved with the attacker's guesses: every valid request is answered 200.
    const mixed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        c.request('GET', routePath(API_ROUTES.me), {
          key: i % 2 === 0 ? key : guess(100 + i),
          headers: from(office),
        }),
      ),
    );
    mixed.forEach((res, i) => {
      expect(res.status).toBe(i % 2 === 0 ? 200 : 429);
    });
  });

  it('attack: /mcp looked up every unknown key without limit; it now counts them like every keyed route', async () => {
    const scanner = '192.0.2.61';
    const guess = (i: number) => `exp_live_${String(i).padStart(43, 'D')}`;
    const mcp = (key: string) =>
      c.request('POST', '/mcp', {
        headers: {
          ...from(scanner),
          authorization: `Bearer ${key}`,
          accept: 'application/json, text/event-stream',
        },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
    for (let i = 0; i < 20; i++) expect((await mcp(guess(i))).status).toBe(401);
    const more = await mcp(guess(20));
    expect(more.status).toBe(429);
    expect(more.body.error.code).toBe('rate_limited');
  });

  it('attack: unknown keys from one IPv6 /64, each from another address, share one budget', async () => {
    const guess = (i: number) => `exp_live_${String(i).padStart(43, 'E')}`;
    for (let i = 0; i < 20; i++) {
      const res = await c.request('GET', routePath(API_ROUTES.me), {
        key: guess(i),
        headers: from(`2001:db8:5:6::${i + 1}`),
      });
      expect(res.status).toBe(401);
    }
    const more = await c.request('GET', routePath(API_ROUTES.me), {
      key: guess(20),
      headers: from('2001:db8:5:6:ffff::77'),
    });
    expect(more.status).toBe(429);
    expect(more.body.error.code).toBe('rate_limited');
    // Another /64 has its own budget.
    const neighbour = await c.request('GET', routePath(API_ROUTES.me), {
      key: guess(21),
      headers: from('2001:db8:5:7::1'),
    });
    expect(neighbour.status).toBe(401);
  });
});
