// The per-key burst window against a clock the test moves: a burst of 30 within one second lets exactly 10
// through however long the burst takes on the machine, and the next window starts when the clock says so.
// rate-limiter-flexible reads Date.now and schedules its expiry with setTimeout: both are faked here.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isApiError } from '../../http/api-error.js';
import { applyKeyLimits, createKeyLimits, RateLimits } from '../limits.js';

const POLICY = '"burst";q=10;w=1, "daily";q=10000;w=86400';

/** One request of `key`: its RateLimit fields, or the 429's status, fields and details. */
async function spend(limiters: ReturnType<typeof createKeyLimits>, key: string) {
  let headers: Record<string, string> = {};
  try {
    await applyKeyLimits(limiters, key, {
      headers(values: Record<string, string>) {
        headers = values;
      },
    });
    return { status: 200, headers, details: undefined };
  } catch (error) {
    if (!isApiError(error)) throw error;
    return {
      status: 429,
      headers: error.options.headers ?? {},
      details: error.options.details as Record<string, unknown>,
    };
  }
}

describe('per-key rate limits on an injected clock', () => {
  let limits: RateLimits;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: Date.UTC(2026, 10, 28, 12) });
    limits = new RateLimits(undefined);
  });
  afterEach(async () => {
    await limits.close();
    vi.useRealTimers();
  });

  it('lets exactly 10 of a burst of 30 through, the rest 429 with Retry-After and the RateLimit fields', async () => {
    const limiters = createKeyLimits(limits, { ratePerSecond: 10, ratePerDay: 10_000 });
    const results = [];
    for (let i = 0; i < 30; i++) {
      results.push(await spend(limiters, 'key-a'));
      vi.advanceTimersByTime(30); // 29 × 30 ms: the burst spans 870 ms of the window's 1,000
    }
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect([ok.length, limited.length]).toEqual([10, 20]);
    expect(ok.map((r) => r.headers.ratelimit)).toEqual(
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((r) => `"burst";r=${r};t=1`),
    );
    for (const r of results) expect(r.headers['ratelimit-policy']).toBe(POLICY);
    for (const r of limited) {
      expect(r.details).toMatchObject({ policy: 'burst', limit: 10, windowSeconds: 1, retryAfterSeconds: 1 });
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers.ratelimit).toBe('"burst";r=0;t=1');
    }
  });

  it('opens the next window when the clock passes the first, and counts every key on its own', async () => {
    const limiters = createKeyLimits(limits, { ratePerSecond: 10, ratePerDay: 10_000 });
    for (let i = 0; i < 10; i++) expect((await spend(limiters, 'key-a')).status).toBe(200);
    expect((await spend(limiters, 'key-b')).headers.ratelimit).toBe('"burst";r=9;t=1');
    vi.advanceTimersByTime(999);
    expect((await spend(limiters, 'key-a')).status).toBe(429);
    vi.advanceTimersByTime(1);
    const next = await spend(limiters, 'key-a');
    expect(next.status).toBe(200);
    expect(next.headers.ratelimit).toBe('"burst";r=9;t=1');
  });

  it('spends the daily quota across windows and says so when it is gone', async () => {
    const limiters = createKeyLimits(limits, { ratePerSecond: 10, ratePerDay: 15 });
    const statuses: number[] = [];
    for (let second = 0; second < 2; second++) {
      for (let i = 0; i < 10; i++) statuses.push((await spend(limiters, 'key-a')).status);
      vi.advanceTimersByTime(1_000);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    const denied = await spend(limiters, 'key-a');
    expect(denied.details).toMatchObject({ policy: 'daily', limit: 15 });
    expect(Number(denied.headers['retry-after'])).toBe(86_400 - 2);
  });
});
