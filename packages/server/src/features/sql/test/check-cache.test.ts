// The check cache in front of the guard's checkAsync: cache hits, and the bound on one user's long texts.
import { createGuard, type Guard, GuardBusyError } from '@expense/sql-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckCache } from '../check-cache.js';

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

  it('keeps at most maxEntries results, dropping the least recently used, and never keeps texts over maxSqlLength', async () => {
    const cache = new CheckCache(guard, { maxEntries: 2, maxSqlLength: 40 });
    const a = await cache.check('SELECT 1 AS a', 'query', keyOf('a', 1));
    const b = await cache.check('SELECT 1 AS b', 'query', keyOf('a', 1));
    expect(await cache.check('SELECT 1 AS a', 'query', keyOf('a', 1))).toBe(a); // a is now the most recent
    const c = await cache.check('SELECT 1 AS c', 'query', keyOf('a', 1)); // the third: b goes
    expect(await cache.check('SELECT 1 AS a', 'query', keyOf('a', 1))).toBe(a);
    expect(await cache.check('SELECT 1 AS c', 'query', keyOf('a', 1))).toBe(c);
    const b2 = await cache.check('SELECT 1 AS b', 'query', keyOf('a', 1));
    expect(b2).not.toBe(b);
    expect(b2).toEqual(b);
    const over = `SELECT 1 AS x${' '.repeat(40)}`;
    const first = await cache.check(over, 'query', keyOf('a', 1));
    expect(first.ok).toBe(true);
    expect(await cache.check(over, 'query', keyOf('a', 1))).not.toBe(first);
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

  it('lets a waiting long text go when its client leaves or its deadline passes, and frees its place', async () => {
    const cache = new CheckCache(guard, { maxLongPerUser: 1 });
    const wait = (signal: AbortSignal, until = Date.now() + 60_000) => ({
      signal,
      until,
      gaveUp: (clientGone: boolean) => new Error(clientGone ? 'client gone' : 'deadline'),
    });
    const running = cache.check(long, 'query', keyOf('first', 1));
    const client = new AbortController();
    const leaving = cache.check(`${long} `, 'query', keyOf('waiter', 1), wait(client.signal));
    client.abort();
    await expect(leaving).rejects.toThrow('client gone');
    // Its place is free at once (a bound of 1 would refuse a second text while the first still waited).
    const late = cache.check(
      `${long}  `,
      'query',
      keyOf('waiter', 1),
      wait(new AbortController().signal, Date.now() + 1),
    );
    await expect(late).rejects.toThrow('deadline');
    const next = cache.check(`${long}   `, 'query', keyOf('waiter', 1));
    expect((await running).ok).toBe(true);
    expect((await next).ok).toBe(true);
    // A client already gone is refused before it takes a place.
    await expect(cache.check(`${long}    `, 'query', keyOf('late', 1), wait(client.signal))).rejects.toThrow(
      'client gone',
    );
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
