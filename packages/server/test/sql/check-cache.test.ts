// The check cache in front of the guard's checkAsync: cache hits, and the bound on one caller's long texts.
import { createGuard, type Guard, GuardBusyError } from '@expense/sql-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckCache } from '../../src/routes/sql/check-cache.js';

const long = `SELECT 1 IN (${Array.from({ length: 30_000 }, () => '1').join(',')})`;

describe('CheckCache', () => {
  let guard: Guard;
  beforeAll(async () => {
    guard = await createGuard({ checkPool: { threads: 1, maxQueue: 16 } });
  });
  afterAll(() => guard?.close());

  it('answers a repeated short text with the very same result', async () => {
    const cache = new CheckCache(guard);
    const first = await cache.check('SELECT count(*) AS n FROM ledger_entries', 'query', 'a');
    expect(first.ok).toBe(true);
    expect(await cache.check('SELECT count(*) AS n FROM ledger_entries', 'query', 'b')).toBe(first);
    expect(await cache.check('SELECT count(*) AS n FROM ledger_entries', 'script', 'a')).not.toBe(first);
  });

  it('refuses a caller more long texts at once than its share, and not the others', async () => {
    const cache = new CheckCache(guard, { maxLongPerCaller: 2 });
    const outcomes = await Promise.allSettled([
      cache.check(long, 'query', 'flooding'),
      cache.check(long, 'query', 'flooding'),
      cache.check(long, 'query', 'flooding'),
      cache.check(long, 'query', 'other'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(GuardBusyError);
    // Once its checks are done, the caller may send long texts again.
    expect((await cache.check(long, 'query', 'flooding')).ok).toBe(true);
  });
});
