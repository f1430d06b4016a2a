/** Messages between the check pool and its worker threads. */
import type { StatementShape } from '../run/statement-shape.js';
import type { CheckResult, Mode } from '../types.js';

export interface PoolRequest {
  id: number;
  sql: string;
  mode: Mode;
}

/** A check's verdict and, when accepted, each statement's shape (so `run` need not parse on the main thread). */
export interface PoolVerdict {
  result: CheckResult;
  shapes?: StatementShape[];
}

export type PoolResponse = ({ id: number } & PoolVerdict) | { ready: true } | { fatal: string };
