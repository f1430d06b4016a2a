import type { Limits } from './types.js';

export const defaultLimits: Readonly<Limits> = Object.freeze({
  maxSqlLength: 100_000,
  maxStatements: 100,
  maxReturnedRows: 100,
  maxAffectedRows: 100,
  deadlineMs: 25_000,
  maxResultBytes: 4 * 1024 * 1024,
  // README, "Expanded size": twice the largest flat statement maxSqlLength allows (an IN list of 50,000 literals),
  // 80x the largest statement of the corpora; 20 levels of the attacks expand to millions and take seconds and GBs.
  maxExpandedNodes: 100_000,
  // README, "Expanded size": 4 MiB of folded constants plans in well under a second and 256 MB; the literal and
  // numeric doublings of issue 35 built 2.77 GB at 11 levels, and the longest statement maxSqlLength allows weighs
  // about 2 x 100,000 bytes flat.
  maxExpandedBytes: 4 * 1024 * 1024,
});
