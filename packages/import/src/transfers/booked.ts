import type { ImportRow } from '../send/batches.js';
import { CLEARING_ACCOUNT, clearingLegOf } from './legs.js';

/**
 * A row of the file booked as a transfer's leg: `held` (its other side waits on the clearing account), `paired`
 * (with an entry of `with` that the workspace held), `moved` (it is the other side of a card's payment waiting on
 * the clearing account, which moves onto its account).
 */
export interface TransferBooked {
  line: number;
  kind: 'held' | 'paired' | 'moved';
  with: string;
}

/**
 * The rows of the file among `rows` (what an import sends): a clearing leg is not a row of the file but the
 * other side of one, added by the import, so counts of rows added and skipped leave it out.
 */
export function fileRows<R extends ImportRow>(rows: R[]): R[] {
  return rows.filter((r) => !('account_id' in r) || clearingLegOf(r as never) === undefined);
}

/** The clearing legs among `rows`, each with the line of the row it is the other side of. */
export const clearingLegs = <R extends ImportRow>(rows: R[]): R[] =>
  rows.filter((r) => 'account_id' in r && clearingLegOf(r as never) !== undefined);

export const heldOn = (line: number): TransferBooked => ({ line, kind: 'held', with: CLEARING_ACCOUNT });

const WORDS: Record<TransferBooked['kind'], (n: number, account: string) => string> = {
  paired: (n, a) => `${n === 1 ? 'a card payment' : `${n} card payments`} paired with ${a}`,
  moved: (n, a) =>
    `${n === 1 ? 'the other side of a card payment' : `the other sides of ${n} card payments`} on ${a}`,
  held: (n, a) =>
    `${n === 1 ? 'a card payment' : `${n} card payments`} whose other side waits on ${a} until the paying account's file is imported`,
};

/**
 * What the transfers among the rows added are, after their count: `1 of them a card payment paired with checking`
 * (the CLI's summary, POST /v1/imports' notes and the console say it the same way). Undefined when none is.
 */
export function transfersLine(booked: readonly TransferBooked[]): string | undefined {
  if (booked.length === 0) return undefined;
  const groups = new Map<string, { kind: TransferBooked['kind']; with: string; n: number }>();
  for (const b of booked) {
    const key = `${b.kind}\n${b.with}`;
    const g = groups.get(key) ?? { kind: b.kind, with: b.with, n: 0 };
    g.n++;
    groups.set(key, g);
  }
  const parts = [...groups.values()].map((g) => WORDS[g.kind](g.n, g.with));
  const n = booked.length;
  return `${n} of them ${n === 1 ? '' : 'transfers: '}${parts.join('; ')}`;
}
