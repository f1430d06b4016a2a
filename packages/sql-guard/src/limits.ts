import type { Limits } from './types.js';

export const defaultLimits: Readonly<Limits> = Object.freeze({
  maxSqlLength: 100_000,
  maxStatements: 100,
  maxReturnedRows: 100,
  maxAffectedRows: 100,
  deadlineMs: 25_000,
  maxResultBytes: 4 * 1024 * 1024,
});
