import { decimal, units } from '../evidence/money.js';
import type { StatementAccount } from './statement.js';

/** A statement's balances against its booked entries: opening + sum = closing, or the difference. */
export interface Reconciliation {
  account: string | undefined;
  opening: string;
  closing: string;
  sum: string;
  balanced: boolean;
  /** closing − (opening + sum); `0.00` when balanced. */
  difference: string;
}

/** The reconciliation of one account, or undefined when the file gives no opening or no closing balance. */
export function reconcile(account: StatementAccount): Reconciliation | undefined {
  const opening = account.opening === undefined ? undefined : units(account.opening);
  const closing = account.closing === undefined ? undefined : units(account.closing);
  if (opening === undefined || closing === undefined) return undefined;
  let sum = 0n;
  for (const e of account.entries) if (e.booked) sum += units(e.amount) ?? 0n;
  const difference = closing - (opening + sum);
  return {
    account: account.id,
    opening: decimal(opening),
    closing: decimal(closing),
    sum: decimal(sum),
    balanced: difference === 0n,
    difference: decimal(difference),
  };
}
