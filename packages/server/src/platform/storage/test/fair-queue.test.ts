import { describe, expect, it } from 'vitest';
import { StartDeadlineError } from '../errors.js';
import { FairQueue } from '../fair-queue.js';

/** Acquires in order and records the order in which places were granted. */
function recorder(queue: FairQueue) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const take = (tenant: string, label: string, startBy?: number) =>
    queue.acquire(tenant, startBy).then((release) => {
      granted.push(label);
      releases.set(label, release);
    });
  const release = async (label: string) => {
    releases.get(label)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { granted, take, release };
}

describe('FairQueue (the embedded engine takes turns between users)', () => {
  it('serves a second user before the first user’s queued requests', async () => {
    const queue = new FairQueue(1);
    const { granted, take, release } = recorder(queue);
    void take('a', 'a1');
    void take('a', 'a2');
    void take('a', 'a3');
    void take('a', 'a4');
    await new Promise((resolve) => setImmediate(resolve));
    void take('b', 'b1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toEqual(['a1']);
    await release('a1');
    expect(granted).toEqual(['a1', 'b1']);
    void take('b', 'b2');
    await release('b1');
    await release('a2');
    await release('b2');
    await release('a3');
    expect(granted).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('takes turns between three users whatever order their requests came in', async () => {
    const queue = new FairQueue(1);
    const { granted, take, release } = recorder(queue);
    void take('a', 'a1');
    for (const label of ['a2', 'a3', 'b1', 'b2', 'c1']) void take(label[0] as string, label);
    await new Promise((resolve) => setImmediate(resolve));
    for (const label of ['a1', 'b1', 'c1', 'a2', 'b2']) await release(label);
    expect(granted).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('drops a waiter whose start deadline passes, without giving it a place', async () => {
    const queue = new FairQueue(1);
    const { granted, take, release } = recorder(queue);
    void take('a', 'a1');
    const late = take('b', 'b1', Date.now() + 20);
    await expect(late).rejects.toBeInstanceOf(StartDeadlineError);
    expect(queue.waiting()).toBe(0);
    void take('c', 'c1');
    await release('a1');
    expect(granted).toEqual(['a1', 'c1']);
  });

  it('refuses at once a request whose start deadline has already passed', async () => {
    const queue = new FairQueue(1);
    await expect(queue.acquire('a', Date.now() - 1)).rejects.toBeInstanceOf(StartDeadlineError);
  });

  it("lets a waiter go when its signal aborts, with the signal's reason, and counts what each tenant holds", async () => {
    const queue = new FairQueue(1);
    const { granted, take, release } = recorder(queue);
    void take('a', 'a1');
    const client = new AbortController();
    const leaving = queue.acquire('b', undefined, client.signal);
    void take('b', 'b2');
    expect([queue.running, queue.waiting(), queue.held('a'), queue.held('b')]).toEqual([1, 2, 1, 2]);
    expect(queue.waiting('b')).toBe(0);
    client.abort(new Error('client gone'));
    await expect(leaving).rejects.toThrow('client gone');
    expect([queue.waiting(), queue.held('b')]).toEqual([1, 1]);
    await release('a1');
    expect(granted).toEqual(['a1', 'b2']);
    await expect(queue.acquire('c', undefined, client.signal)).rejects.toThrow('client gone');
  });

  it('with several places, gives the next to the waiting tenant running the fewest', async () => {
    const queue = new FairQueue(2);
    const { granted, take, release } = recorder(queue);
    void take('a', 'a1');
    void take('b', 'b1');
    void take('a', 'a2');
    void take('b', 'b2');
    await new Promise((resolve) => setImmediate(resolve));
    // a was served longest ago, but it still runs a1 and b runs nothing: b goes first.
    await release('b1');
    expect(granted).toEqual(['a1', 'b1', 'b2']);
    await release('a1');
    expect(granted).toEqual(['a1', 'b1', 'b2', 'a2']);
  });
});
