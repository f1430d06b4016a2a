/**
 * Whether a read provably returns at most `maxReturnedRows` rows, so that it can run without a cursor: all
 * its rows reach the client, and their number is the exact total. Only one shape is proven: a plain SELECT
 * (no set operation, no locking clause, no INTO) whose top-level `LIMIT` is an integer literal within the
 * cap, as a count (not `WITH TIES`, which may return more). Anything else keeps the cursor.
 */
import { parseSync } from 'libpg-query';
import type { CheckedStatement } from '../types.js';

interface LimitClause {
  limitCount?: { A_Const?: { ival?: { ival?: number }; isnull?: boolean } };
  limitOption?: string;
  op?: string;
  lockingClause?: unknown;
  intoClause?: unknown;
}

/** The literal LIMIT of each statement this process has seen (`null`: none that proves a bound). */
const literalLimits = new WeakMap<CheckedStatement, number | null>();

/** `statement` must be one that `check` accepted (its text parses as exactly one statement). */
export function withinRowCap(statement: CheckedStatement, maxReturnedRows: number): boolean {
  if (statement.kind !== 'select' || !statement.readOnly) return false;
  let limit = literalLimits.get(statement);
  if (limit === undefined) {
    limit = literalLimit(statement.sql);
    literalLimits.set(statement, limit);
  }
  return limit !== null && limit <= maxReturnedRows;
}

/** The top-level literal `LIMIT n` of a plain SELECT, or null. Exported for tests. */
export function literalLimit(sql: string): number | null {
  let select: LimitClause | undefined;
  try {
    const stmts = parseSync(sql).stmts as unknown as { stmt?: { SelectStmt?: LimitClause } }[];
    if (stmts.length !== 1) return null;
    select = stmts[0]?.stmt?.SelectStmt;
  } catch {
    return null;
  }
  if (select?.op !== 'SETOP_NONE' || select.limitOption !== 'LIMIT_OPTION_COUNT') return null;
  if (select.lockingClause !== undefined || select.intoClause !== undefined) return null;
  const constant = select.limitCount?.A_Const;
  if (!constant || constant.isnull || !constant.ival) return null;
  // libpg-query leaves a zero out of its JSON: `{ ival: {} }` is LIMIT 0.
  const n = constant.ival.ival ?? 0;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}
