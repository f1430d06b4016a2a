import type { ServerResponse } from 'node:http';
import { GuardRunError } from '@expense/sql-guard';

/**
 * Aborts when the client goes away (its connection closes) before the response was sent: the pipeline then stops
 * waiting for a connection, and the guard cancels the statement in flight on the database.
 */
export function clientGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (response.destroyed) controller.abort();
  else
    response.once('close', () => {
      if (!response.writableFinished) controller.abort();
    });
  return controller.signal;
}

/**
 * A SQL request's deadline, counted from its arrival: the time it waited (for a place on the embedded
 * database, for a pooled connection) is part of it. The guard's run takes `arrivedAt` as its `startedAt`.
 */
/** deadline_exceeded because the embedded engine was given to another user's turn (variant `engine_busy`). */
export class EngineBusyError extends GuardRunError<'deadline_exceeded'> {}

export class ArrivalDeadline {
  /** When the request must be answered, in epoch milliseconds. */
  readonly at: number;

  constructor(
    /** When the request arrived, in epoch milliseconds (the guard's `startedAt`). */
    readonly arrivedAt: number,
    readonly deadlineMs: number,
  ) {
    this.at = arrivedAt + deadlineMs;
  }

  get passed(): boolean {
    return Date.now() >= this.at;
  }

  /** The request could not start before its deadline: nothing ran. */
  notStarted(): GuardRunError {
    return new GuardRunError(
      'deadline_exceeded',
      `The request could not start within its deadline of ${this.deadlineMs} ms (counted from its arrival, waiting included) and ran no SQL.`,
      { deadlineMs: this.deadlineMs },
      'The database is busy: retry in a moment, and make slow requests cheaper (narrower filters, fewer joins).',
    );
  }

  /** The request ran past its deadline and was stopped: nothing was changed. */
  exceeded(): GuardRunError {
    return new GuardRunError(
      'deadline_exceeded',
      `The request did not finish within ${this.deadlineMs} ms.`,
      { deadlineMs: this.deadlineMs },
      'The database is busy (or the rows this needs are locked by a slow write): retry in a moment.',
    );
  }

  /** The client went away before the request could start: nothing ran (nobody reads this answer). */
  aborted(): GuardRunError {
    return new GuardRunError('deadline_exceeded', 'The request was aborted before it started.', {
      aborted: true,
    });
  }

  /**
   * The embedded engine stopped this request (a read, or a write before its COMMIT) after its fair share for another
   * user's turn, and rolled it back.
   */
  preempted(afterMs: number): GuardRunError {
    return new EngineBusyError(
      'deadline_exceeded',
      `The request was stopped after ${afterMs} ms because other users were waiting, and rolled back: the embedded database was busy, it runs one statement at a time, and a request may hold it for ${afterMs} ms while others wait.`,
      { deadlineMs: this.deadlineMs },
      'Send it again in a moment, or make it cheaper (narrower filters, fewer joins) or smaller (fewer rows per write) so that it finishes within its share.',
    );
  }
}
