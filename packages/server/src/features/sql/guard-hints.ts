import type { GuardViolation } from '@expense/sql-guard';
import type { Clock } from '@expense/wire';
import { clockAt } from '../../platform/clock/clock.js';
import { dateLiteralHint, RECIPES } from '../../platform/storage/relation-hints.js';

/** Functions that read the clock: their refusal quotes today's date in the workspace's time zone. */
const CLOCK_FUNCTIONS = new Set([
  'NOW',
  'CURRENT_DATE',
  'CURRENT_TIMESTAMP',
  'CURRENT_TIME',
  'LOCALTIME',
  'LOCALTIMESTAMP',
  'TRANSACTION_TIMESTAMP',
  'STATEMENT_TIMESTAMP',
  'CLOCK_TIMESTAMP',
]);
const CASE_FUNCTIONS = new Set(['LOWER', 'UPPER']);
const DATE_PART_FUNCTIONS = new Set(['DATE_TRUNC', 'EXTRACT', 'DATE_PART', 'TO_CHAR', 'MAKE_DATE']);

/** The function a function_not_allowed refusal names ("Function NOW is not allowed."), upper case. */
function refusedFunction(violation: GuardViolation): string | undefined {
  if (violation.code !== 'function_not_allowed') return undefined;
  return /^Function ([A-Z_][A-Z0-9_]*) is not allowed/.exec(violation.message)?.[1];
}

/** True when the refusal's hint should quote today's date (the caller then looks up the workspace's clock). */
export function needsClock(violation: GuardViolation): boolean {
  const name = refusedFunction(violation);
  return name !== undefined && CLOCK_FUNCTIONS.has(name);
}

/**
 * The guard's refusal with the server's hint where the server knows more than the guard: today's date for the
 * clock functions, and the recipes of the relations' catalogue for LOWER/UPPER and date parts.
 */
export function withServerHint(violation: GuardViolation, clock: Clock | undefined): GuardViolation {
  const name = refusedFunction(violation);
  if (name === undefined) return violation;
  if (CLOCK_FUNCTIONS.has(name) && clock) return { ...violation, hint: dateLiteralHint(clock) };
  if (CASE_FUNCTIONS.has(name)) return { ...violation, hint: RECIPES.caseInsensitive };
  if (DATE_PART_FUNCTIONS.has(name))
    return { ...violation, hint: `${RECIPES.monthBuckets}. ${RECIPES.monthCalendar}` };
  return violation;
}

/** withServerHint, looking up the workspace's clock only for a clock function (UTC if the lookup fails). */
export async function explainedRefusal(
  violation: GuardViolation,
  clockOf: () => Promise<Clock>,
): Promise<GuardViolation> {
  const clock = needsClock(violation) ? await clockOf().catch(() => clockAt(new Date(), 'UTC')) : undefined;
  return withServerHint(violation, clock);
}
