import type { Limits } from './types.js';

export const defaultLimits: Readonly<Limits> = Object.freeze({
  maxSqlLength: 100_000,
  maxStatements: 100,
  maxReturnedRows: 100,
  maxAffectedRows: 100,
  deadlineMs: 25_000,
  maxResultBytes: 4 * 1024 * 1024,
  // README, "Expanded size": 16x the largest statement of the corpora (1,210 nodes); on PostgreSQL 15 the costliest
  // attack form of this size plans in about 0.3 s and 60 MB, where 20 levels of it take seconds and gigabytes.
  maxExpandedNodes: 20_000,
});
