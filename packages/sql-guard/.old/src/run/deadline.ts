/**
 * The request's clock: expires at `deadlineMs` or when the caller's signal aborts, whichever comes first,
 * and then calls `onExpire` (which interrupts the statement in flight, if the session can).
 */
export class Deadline {
  readonly startedAt = Date.now();
  #reason: 'deadline' | 'aborted' | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #signal: AbortSignal | undefined;
  #onAbort = () => this.#expire('aborted');
  #onExpire: () => void;

  constructor(
    readonly deadlineMs: number,
    signal: AbortSignal | undefined,
    onExpire: () => void,
  ) {
    this.#onExpire = onExpire;
    if (signal?.aborted) {
      this.#reason = 'aborted';
      return;
    }
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#timer = setTimeout(() => this.#expire('deadline'), deadlineMs);
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
