import { type CheckResult, GuardBusyError } from '@expense/sql-guard';

export interface FairCheckQueueOptions {
  /** Long texts one user may have here at once (waiting and running); more are refused (GuardBusyError). */
  perUser: number;
  /** Checks handed to the guard's pool at once: its thread count, so none waits in the pool's own queue. */
  concurrency: number;
  /** Long texts that may wait here in all, every user together; more are refused. */
  maxWaiting: number;
}

/** How long a text may wait for its turn: its request's deadline, and its client still there. */
export interface Wait {
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Epoch milliseconds at which the text stops waiting. */
  until: number;
  /** What a text that stopped waiting rejects with: the client went away, or the time ran out. */
  gaveUp(clientGone: boolean): unknown;
}

interface Job {
  run: () => Promise<CheckResult>;
  resolve: (result: CheckResult) => void;
  reject: (error: unknown) => void;
  /** Stops listening to the caller's signal once the job left the queue. */
  settle: () => void;
}

/**
 * Long texts on their way to the guard's worker pool, which parses one at a time per thread. Users take turns:
 * each has a queue in arrival order, and a free thread takes the next text of the waiting user served longest
 * ago (a user never served first), so another user's text waits for the checks already running and at most one
 * text of each other waiting user, however many keys and texts a user sends. One user may hold `perUser`
 * places in all.
 */
export class FairCheckQueue {
  readonly #waiting = new Map<string, Job[]>();
  /** Users with a waiting text, in the order of their turns. */
  readonly #turns: string[] = [];
  /** Texts per user, waiting or running. */
  readonly #held = new Map<string, number>();
  /** When each user holding texts was last served (a running count); absent: not since they held none. */
  readonly #lastServed = new Map<string, number>();
  #served = 0;
  #running = 0;
  #waitingCount = 0;

  constructor(private readonly options: FairCheckQueueOptions) {}

  /**
   * Runs `run` (a check in the guard's pool) in the user's turn; rejects with GuardBusyError when over a bound.
   * A text still waiting when `wait` ends (its request's deadline, or its client went away) leaves the queue, gives
   * its place back and rejects with `wait.gaveUp`; a check already running ends. The timer exists only while a text
   * waits.
   */
  check(userId: string, run: () => Promise<CheckResult>, wait?: Wait): Promise<CheckResult> {
    if (wait?.signal.aborted) return Promise.reject(wait.gaveUp(true));
    const held = this.#held.get(userId) ?? 0;
    if (held >= this.options.perUser) return Promise.reject(new GuardBusyError(this.options.perUser));
    if (this.#running >= this.options.concurrency && this.#waitingCount >= this.options.maxWaiting) {
      return Promise.reject(new GuardBusyError(this.options.maxWaiting));
    }
    this.#held.set(userId, held + 1);
    return new Promise<CheckResult>((resolve, reject) => {
      const job: Job = { run, resolve, reject, settle: () => {} };
      if (this.#running < this.options.concurrency) return this.#start(userId, job);
      if (wait) {
        const clientGone = () => this.#leave(userId, job, wait.gaveUp(true));
        const timer = setTimeout(() => this.#leave(userId, job, wait.gaveUp(false)), wait.until - Date.now());
        wait.signal.addEventListener('abort', clientGone, { once: true });
        job.settle = () => {
          clearTimeout(timer);
          wait.signal.removeEventListener('abort', clientGone);
        };
      }
      const queue = this.#waiting.get(userId);
      if (queue) queue.push(job);
      else {
        this.#waiting.set(userId, [job]);
        this.#turns.push(userId);
      }
      this.#waitingCount++;
    });
  }

  /** A waiting text whose request gave up: out of the queue, its place given back. */
  #leave(userId: string, job: Job, reason: unknown): void {
    const queue = this.#waiting.get(userId);
    const at = queue?.indexOf(job) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    job.settle();
    this.#waitingCount--;
    if (queue.length === 0) {
      this.#waiting.delete(userId);
      this.#turns.splice(this.#turns.indexOf(userId), 1);
    }
    this.#release(userId);
    job.reject(reason);
  }

  #release(userId: string): void {
    const left = (this.#held.get(userId) ?? 1) - 1;
    if (left > 0) this.#held.set(userId, left);
    else {
      this.#held.delete(userId);
      this.#lastServed.delete(userId);
    }
  }

  #start(userId: string, job: Job): void {
    job.settle();
    this.#running++;
    this.#lastServed.set(userId, ++this.#served);
    Promise.resolve()
      .then(job.run)
      .then(job.resolve, job.reject)
      .finally(() => {
        this.#running--;
        this.#release(userId);
        this.#next();
      });
  }

  #next(): void {
    if (this.#turns.length === 0) return;
    let turn = 0;
    for (let i = 1; i < this.#turns.length; i++) {
      if (this.#servedAt(this.#turns[i]!) < this.#servedAt(this.#turns[turn]!)) turn = i;
    }
    const userId = this.#turns.splice(turn, 1)[0]!;
    const queue = this.#waiting.get(userId)!;
    const job = queue.shift()!;
    this.#waitingCount--;
    if (queue.length > 0) this.#turns.push(userId);
    else this.#waiting.delete(userId);
    this.#start(userId, job);
  }

  #servedAt(userId: string): number {
    return this.#lastServed.get(userId) ?? 0;
  }
}
