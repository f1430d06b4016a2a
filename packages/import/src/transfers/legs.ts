import { CARD_PAYMENT } from '../csv/words.js';
import { negate } from '../evidence/money.js';
import type { LedgerRow } from '../rows/fields.js';

/**
 * Where the other side of a transfer waits until the paying account's file is imported (GnuCash's Imbalance
 * account): a card payment whose paying row is not in the workspace yet is booked as two legs, the card's and
 * this account's, so the transfer balances from the start and the card's balance is right at once.
 */
export const CLEARING_ACCOUNT = 'unmatched-transfers';

/** The days between the two sides of one transfer (a card payment leaves the bank a few days before it lands). */
export const PAIR_WINDOW_DAYS = 7;

const OTHER_SIDE = ':other-side';

/** The event of a card payment: named after its own row's duplicate key, so a repeated import names it again. */
export const transferEvent = (externalId: string) => `transfer:${externalId}`;

/**
 * A card's payment in as the two legs of a transfer: the row itself (kind `transfer`, no category) and its
 * counter-leg on the clearing account, which a later import moves onto the account that paid.
 */
export function cardPaymentLegs(row: LedgerRow): [LedgerRow, LedgerRow] {
  const event = transferEvent(row.external_id);
  const leg: LedgerRow = { ...row, kind: 'transfer', category: null, event_id: event };
  return [
    leg,
    {
      ...leg,
      account_id: CLEARING_ACCOUNT,
      amount: negate(row.amount),
      note: `the other side of a payment into ${row.account_id}, not yet imported`,
      external_id: `${row.external_id}${OTHER_SIDE}`,
    },
  ];
}

/** Whether an external_id is a clearing leg's (the other side of the row whose external_id it extends). */
export const isClearingId = (externalId: string | null | undefined): boolean =>
  externalId?.endsWith(OTHER_SIDE) === true;

/** The clearing leg this import adds for `leg`, if `row` is one: its external_id names the leg's. */
export const clearingLegOf = (row: LedgerRow): string | undefined =>
  row.account_id === CLEARING_ACCOUNT && row.external_id.endsWith(OTHER_SIDE)
    ? row.external_id.slice(0, -OTHER_SIDE.length)
    : undefined;

/**
 * The rows of accounts the workspace keeps as credit cards (`account_metadata.account_type = 'credit_card'`): a
 * payment in among them (money into the card, its words say payment) becomes a transfer's two legs, as on a file
 * that says it is a card's. Other rows are returned as they are.
 */
export function cardPaymentsOn(rows: LedgerRow[], cards: ReadonlySet<string>): LedgerRow[] {
  if (cards.size === 0) return rows;
  return rows.flatMap((row) =>
    cards.has(row.account_id) &&
    row.kind === 'income' &&
    row.event_id === null &&
    CARD_PAYMENT.test(`${row.counterparty ?? ''} ${row.note ?? ''}`)
      ? cardPaymentLegs(row)
      : [row],
  );
}
