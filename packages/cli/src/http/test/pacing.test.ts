import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginWithoutTty, openSandbox, type RunningServer, type Sandbox } from '../../../test/e2e/harness.js';
import { ApiClient, pacingMs } from '../client.js';

describe('pacingMs', () => {
  it('spaces requests by the smallest window of RateLimit-Policy, with a small margin', () => {
    expect(pacingMs('"burst";q=10;w=1, "daily";q=10000;w=86400')).toBe(102);
    expect(pacingMs('"daily";q=10000;w=86400, "burst";q=4;w=2')).toBe(510);
    expect(pacingMs(undefined)).toBe(0);
    expect(pacingMs('garbage')).toBe(0);
  });
});

// A sequential client that follows the server's RateLimit-Policy never runs into 429.
describe('ApiClient against a real server limiting keys to 3 requests per second', () => {
  let sandbox: Sandbox;
  let dir: { path: string; remove(): Promise<void> };
  let server: RunningServer;
  let apiKey: string;

  beforeAll(async () => {
    let env: NodeJS.ProcessEnv;
    sandbox = await openSandbox('expense-cli-pacing-', {
      database: 'postgres',
      serverEnv: { EXPENSE_RATE_PER_SECOND: '3' },
    });
    ({ dir, server, env } = sandbox);
    const config = join(dir.path, 'config');
    const login = await loginWithoutTty(env, server.outbox, 'pace@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    const stored = JSON.parse(await readFile(join(config, 'expense', 'credentials.json'), 'utf8'));
    apiKey = Object.values(stored.keys as Record<string, { apiKey: string }>)[0]!.apiKey;
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  // What the client controls is when it starts each request: reckoned on a clock of the test's, whose time moves
  // only by the client's own waits (each wait is also really waited, so that the server's one-second window sees
  // the spacing), the starts are exact whatever the machine's load.
  it('spaces ten calls in a row by the policy it was sent (3 a second: 340 ms apart), each answered 200', async () => {
    let now = 0;
    const starts: number[] = [];
    const clock = {
      now: () => now,
      async sleep(ms: number) {
        now += ms;
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    };
    // Node announces each HTTP request it starts; this test process sends only the client's.
    const started = () => starts.push(now);
    subscribe('http.client.request.start', started);
    const client = new ApiClient({ userAgent: 'pacing-test', clock });
    try {
      for (let i = 0; i < 10; i++) {
        const res = await client.call({ method: 'GET', url: `${server.apiUrl}/me`, apiKey });
        expect(res.status).toBe(200);
      }
    } finally {
      unsubscribe('http.client.request.start', started);
      await client.close();
    }
    const spacing = pacingMs('"burst";q=3;w=1, "daily";q=10000;w=86400');
    expect(spacing).toBe(340);
    // Ten calls, the first at once; a 429 from the server's fixed window (a loaded machine shifts when the server
    // gets to a request) is sent again after its Retry-After of 1 s, which outlasts the spacing.
    expect(starts[0]).toBe(0);
    expect(starts.length).toBeGreaterThanOrEqual(10);
    for (let i = 1; i < starts.length; i++) expect([spacing, 1_000]).toContain(starts[i]! - starts[i - 1]!);
  });
});
