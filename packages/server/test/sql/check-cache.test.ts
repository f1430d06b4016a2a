// The check cache in front of the guard's checkAsync: cache hits, and the bound on one user's long texts.
import { createGuard, type Guard, GuardBusyError } from '@expense/sql-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckCache } from '../../src/routes/sql/check-cache.js';

const long = `SELECT 1 IN (${Array.from({ length: 30_000 }, () => '1').join(',')})`;
const keyOf = (userId: string, n: number) => ({ userId, connectionId: `${userId}-key-${n}` });

describe('CheckCache', () => {
  let guard: Guard;
  beforeAll(async () => {
    guard = await createGuard({ checkPool: { threads: 1, maxQueue: 64 } });
  });
  afterAll(() => guard?.close());

  it('answers a repeated short text with the very same result', async () => {
    const cache = new CheckCache(guard);
    const first = await cache.check('SELECT count(*) AS n FROM ledger_entries', 'query', keyOf('a', 1));
    expect(first.ok).toBe(true);
    expect(await cache.check('SELECT count(*) AS n FROM ledger_entries', 'query', keyOf('b', 1))).toBe(first);
    expect(await cache.check('SELECT count(*) AS n FROM ledger_entries', 'script', keyOf('a', 1))).not.toBe(
      first,
    );
  });

  it('refuses a user more long texts at once than its share, and not the others', async () => {
    const cache = new CheckCache(guard, { maxLongPerUser: 2 });
    const outcomes = await Promise.allSettled([
      cache.check(long, 'query', keyOf('flooding', 1)),
      cache.check(long, 'query', keyOf('flooding', 1)),
      cache.check(long, 'query', keyOf('flooding', 1)),
      cache.check(long, 'query', keyOf('other', 1)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(GuardBusyError);
    // Once its checks are done, the user may send long texts again.
    expect((await cache.check(long, 'query', keyOf('flooding', 1))).ok).toBe(true);
  });

  it("attack: 17 keys of one user do not multiply its share, nor make another user's text wait behind them", async () => {
    const cache = new CheckCache(guard, { maxLongPerUser: 4 });
    const finished: string[] = [];
    const checks = Array.from({ length: 17 }, (_, n) =>
      cache.check(long, 'query', keyOf('flooding', n)).then(() => finished.push('flooding')),
    );
    // The bystander's 4,150-character text, sent while the flood is in the guard's pool.
    const bystander = `SELECT 1 IN (${Array.from({ length: 2_067 }, () => '1').join(',')})`;
    expect(bystander.length).toBeGreaterThan(4_000);
    const other = cache
      .check(bystander, 'query', keyOf('bystander', 1))
      .then(() => finished.push('bystander'));
    const outcomes = await Promise.allSettled([...checks, other]);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(13);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(GuardBusyError);
    // Users take turns: the bystander waited for the text already in the pool only, not for the user's others.
    expect(finished.indexOf('bystander')).toBe(1);
  });

  it('serves waiting users in turns, the one served longest ago first, each user in arrival order', async () => {
    const cache = new CheckCache(guard, { maxLongPerUser: 4 });
    const finished: string[] = [];
    const send = (user: string, n: number) =>
      cache.check(long, 'query', keyOf(user, n)).then(() => finished.push(`${user}${n}`));
    await Promise.all([send('a', 1), send('a', 2), send('a', 3), send('b', 1), send('b', 2), send('c', 1)]);
    expect(finished).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });
});
