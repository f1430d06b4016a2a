import { StartDeadlineError } from './errors.js';

interface Waiter {
  tenant: string;
  enqueuedAt: number;
  grant: (release: () => void) => void;
  reject: (error: unknown) => void;
  /** Stops the waiter's deadline timer and abort listener once it left the queue. */
  settle: () => void;
}

/**
 * Places on a resource of `capacity` (the embedded database's one connection, the guard's worker threads),
 * handed out in turns between tenants: each tenant's waiters are first come first served; the next place goes to
 * the waiting tenant with the fewest places held, among those to the one served longest ago (a tenant with
 * nothing running or waiting is forgotten, and counts as never served), and among those to the one whose request
 * waits longest. One tenant with many waiting requests therefore delays another by at most the requests it
 * already runs. A waiter whose `startBy` passes before its turn leaves with StartDeadlineError; one whose
 * `signal` aborts leaves with the signal's reason.
 */
export class FairQueue {
  #running = 0;
  #turn = 0;
  readonly #waiting = new Map<string, Waiter[]>();
  /** Places held and the turn of the last grant, per tenant with something waiting or running. */
  readonly #held = new Map<string, { running: number; servedAt: number }>();

  constructor(readonly capacity = 1) {}

  /** Places in use. */
  get running(): number {
    return this.#running;
  }

  /** Requests waiting, over all tenants but those given. */
  waiting(...otherThan: string[]): number {
    let n = 0;
    for (const [tenant, list] of this.#waiting) if (!otherThan.includes(tenant)) n += list.length;
    return n;
  }

  /** A tenant's requests here, running and waiting. */
  held(tenant: string): number {
    return (this.#held.get(tenant)?.running ?? 0) + (this.#waiting.get(tenant)?.length ?? 0);
  }

  /** Since when (epoch ms) the longest-waiting request of a tenant other than those given waits, if any. */
  waitingSince(...otherThan: string[]): number | undefined {
    let oldest: number | undefined;
    for (const [tenant, list] of this.#waiting) {
      if (otherThan.includes(tenant)) continue;
      const first = list[0]?.enqueuedAt;
      if (first !== undefined && (oldest === undefined || first < oldest)) oldest = first;
    }
    return oldest;
  }

  /** Resolves with a release function once the tenant has a place. */
  acquire(tenant: string, startBy?: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (startBy !== undefined && Date.now() >= startBy) return Promise.reject(new StartDeadlineError());
    if (this.#running < this.capacity && this.#waiting.size === 0) {
      return Promise.resolve(this.#grant(tenant));
    }
    return new Promise((grant, reject) => {
      const waiter: Waiter = { tenant, enqueuedAt: Date.now(), grant, reject, settle: () => {} };
      const expire = () => this.#leave(waiter, new StartDeadlineError());
      const abort = () => this.#leave(waiter, signal?.reason);
      const timer = startBy === undefined ? undefined : setTimeout(expire, Math.max(0, startBy - Date.now()));
      signal?.addEventListener('abort', abort, { once: true });
      waiter.settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
      };
      const list = this.#waiting.get(tenant);
      if (list) list.push(waiter);
      else this.#waiting.set(tenant, [waiter]);
      this.#dispatch();
    });
  }

  #grant(tenant: string): () => void {
    this.#running++;
    const held = this.#held.get(tenant) ?? { running: 0, servedAt: 0 };
    held.running++;
    held.servedAt = ++this.#turn;
    this.#held.set(tenant, held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      held.running--;
      this.#forget(tenant);
      this.#dispatch();
    };
  }

  #forget(tenant: string): void {
    if (this.#held.get(tenant)?.running === 0 && !this.#waiting.has(tenant)) this.#held.delete(tenant);
  }

  #dispatch(): void {
    while (this.#running < this.capacity && this.#waiting.size > 0) {
      let best: { tenant: string; running: number; servedAt: number; since: number } | undefined;
      for (const [tenant, list] of this.#waiting) {
        const held = this.#held.get(tenant);
        const running = held?.running ?? 0;
        const servedAt = held?.servedAt ?? 0;
        const since = list[0]?.enqueuedAt ?? 0;
        if (
          !best ||
          running < best.running ||
          (running === best.running &&
            (servedAt < best.servedAt || (servedAt === best.servedAt && since < best.since)))
        ) {
          best = { tenant, running, servedAt, since };
        }
      }
      const tenant = (best as { tenant: string }).tenant;
      const list = this.#waiting.get(tenant) as Waiter[];
      const waiter = list.shift() as Waiter;
      if (list.length === 0) this.#waiting.delete(tenant);
      waiter.settle();
      waiter.grant(this.#grant(tenant));
    }
  }

  #leave(waiter: Waiter, reason: unknown): void {
    const list = this.#waiting.get(waiter.tenant);
    const index = list?.indexOf(waiter) ?? -1;
    if (!list || index < 0) return;
    list.splice(index, 1);
    waiter.settle();
    if (list.length === 0) {
      this.#waiting.delete(waiter.tenant);
      this.#forget(waiter.tenant);
    }
    waiter.reject(reason);
  }
}
