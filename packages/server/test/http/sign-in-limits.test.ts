// Sign-in cannot be blocked from elsewhere (issue 11, finding 5): a newer code never voids an older challenge,
// send-code limits are per address AND client address, and unknown ApiKeys are limited per client address.
// Real HTTP on both engines; client addresses come from X-Forwarded-For behind a trusted proxy.
import {
  type Client,
  codeOf,
  ENGINES,
  lastMailTo,
  removeDir,
  socketClient,
  tempDir,
} from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startLive } from '../sql/setup.js';

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
    c.request('POST', '/api/agent/send-code', { body: { email }, headers: from(ip) });
  const verify = (code: string, otpSessionToken: string, ip: string) =>
    c.request('POST', '/api/agent/verify-code', {
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

  it('limits unknown well-formed ApiKeys per client address, without touching valid cached keys', async () => {
    const sent = await sendCode('keeper@example.com', '192.0.2.50');
    const signedIn = await verify(
      codeOf(await lastMailTo(outbox, 'keeper@example.com')),
      sent.body.data.otpSessionToken,
      '192.0.2.50',
    );
    const key: string = signedIn.body.data.apiKey;
    expect((await c.request('GET', '/v1/me', { key, headers: from('192.0.2.50') })).status).toBe(200);

    const guess = (i: number) => `exp_live_${String(i).padStart(43, 'A')}`;
    for (let i = 0; i < 20; i++) {
      const res = await c.request('GET', '/v1/me', { key: guess(i), headers: from('192.0.2.50') });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    // The 21st is refused before any lookup: even a key that exists would be (it is not cached).
    const more = await c.request('GET', '/v1/me', { key: guess(20), headers: from('192.0.2.50') });
    expect(more.status).toBe(429);
    expect(more.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(Number(more.headers['retry-after'])).toBeGreaterThan(0);
    // The valid key, already verified, keeps working from the same client; other clients are not affected.
    expect((await c.request('GET', '/v1/me', { key, headers: from('192.0.2.50') })).status).toBe(200);
    const elsewhere = await c.request('GET', '/v1/me', { key: guess(21), headers: from('192.0.2.51') });
    expect(elsewhere.status).toBe(401);
    // Malformed keys cost no lookup and are not counted.
    const malformed = await c.request('GET', '/v1/me', { key: 'nope', headers: from('192.0.2.52') });
    expect(malformed.body.error.code).toBe('invalid_api_key');
  });
});
