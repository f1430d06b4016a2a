/**
 * The expanded size of a statement (`limits.maxExpandedNodes`), found by bisection over the bound: a statement
 * passes a bound iff its size is within it, so nothing of the guard's internals is exposed for it.
 */
import { loadModule } from 'libpg-query';
import { createChecker } from '../src/check/check.js';
import { expenseDialect } from '../src/index.js';
import { defaultLimits } from '../src/limits.js';
import type { Mode } from '../src/types.js';

await loadModule();

const passes = (sql: string, mode: Mode, bound: number) => {
  const r = createChecker(expenseDialect, { ...defaultLimits, maxExpandedNodes: bound })(sql, { mode });
  return r.ok || r.error.code !== 'statement_too_complex';
};

/** The expanded size of the largest statement of `sql`, or `> cap` when it passes no bound up to `cap`. */
export function expandedSize(sql: string, mode: Mode, cap = 2 ** 40): number | string {
  if (!passes(sql, mode, cap)) return `> ${cap}`;
  let lo = 0;
  let hi = cap;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (passes(sql, mode, mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
