/**
 * The request's clock: expires `deadlineMs` after `startedAt` (epoch ms, when the request arrived; default now)
 * or when the caller's signal aborts, whichever comes first, and then calls `onExpire` (which interrupts the
 * statement in flight, if the session can). A clock that starts past its deadline has expired already.
 */
export class Deadline {
  readonly startedAt: number;
  #reason: 'deadline' | 'aborted' | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #signal: AbortSignal | undefined;
  #onAbort = () => this.#expire('aborted');
  #onExpire: () => void;

  constructor(
    readonly deadlineMs: number,
    signal: AbortSignal | undefined,
    onExpire: () => void,
    startedAt: number = Date.now(),
  ) {
    this.#onExpire = onExpire;
    this.startedAt = startedAt;
    if (signal?.aborted) {
      this.#reason = 'aborted';
      return;
    }
    const left = deadlineMs - (Date.now() - startedAt);
    if (left <= 0) {
      this.#reason = 'deadline';
      return;
    }
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#timer = setTimeout(() => this.#expire('deadline'), left);
  }

  /** Why the request must stop, or undefined while it may go on. */
  get reason(): 'deadline' | 'aborted' | undefined {
    return this.#reason;
  }

  /** Whole milliseconds left, at least 1 (0 would disable statement_timeout). */
  remainingMs(): number {
    return Math.max(1, Math.ceil(this.deadlineMs - (Date.now() - this.startedAt)));
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }

  #expire(reason: 'deadline' | 'aborted'): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.dispose();
    this.#onExpire();
  }
}
