import { type CheckResult, GuardBusyError } from '@expense/sql-guard';
import { StartDeadlineError } from '../../platform/storage/errors.js';
import { FairQueue } from '../../platform/storage/fair-queue.js';

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

/**
 * Long texts on their way to the guard's worker pool, which parses one at a time per thread. Users take turns
 * (a FairQueue with a place per thread): each has a queue in arrival order, and a free thread takes the next text
 * of the waiting user with the fewest running, then served longest ago (a user never served first), so another
 * user's text waits for the checks already running and at most one text of each other waiting user, however many
 * keys and texts a user sends. One user may hold `perUser` places in all.
 */
export class FairCheckQueue {
  readonly #turns: FairQueue;

  constructor(private readonly options: FairCheckQueueOptions) {
    this.#turns = new FairQueue(options.concurrency);
  }

  /**
   * Runs `run` (a check in the guard's pool) in the user's turn; rejects with GuardBusyError when over a bound.
   * A text still waiting when `wait` ends (its request's deadline, or its client went away) leaves the queue, gives
   * its place back and rejects with `wait.gaveUp`; a check already running ends. The timer exists only while a text
   * waits.
   */
  async check(userId: string, run: () => Promise<CheckResult>, wait?: Wait): Promise<CheckResult> {
    if (wait?.signal.aborted) throw wait.gaveUp(true);
    if (this.#turns.held(userId) >= this.options.perUser) throw new GuardBusyError(this.options.perUser);
    if (this.#turns.running >= this.options.concurrency && this.#turns.waiting() >= this.options.maxWaiting) {
      throw new GuardBusyError(this.options.maxWaiting);
    }
    let release: () => void;
    try {
      release = await this.#turns.acquire(userId, wait?.until, wait?.signal);
    } catch (error) {
      // Only a wait ends a waiting text: its deadline (StartDeadlineError) or its client leaving.
      throw wait ? wait.gaveUp(!(error instanceof StartDeadlineError)) : error;
    }
    try {
      return await run();
    } finally {
      release();
    }
  }
}
