/** What the check pool gives its worker threads (check-worker.ts) and what they answer. */
import type { StatementShape } from '../run/statement-shape.js';
import type { CheckResult, Mode } from '../types.js';

export interface PoolRequest {
  sql: string;
  mode: Mode;
}

/** A check's verdict and, when accepted, each statement's shape (so `run` need not parse on the main thread). */
export interface PoolVerdict {
  result: CheckResult;
  shapes?: StatementShape[];
}
