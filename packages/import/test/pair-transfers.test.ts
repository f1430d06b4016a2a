import { describe, expect, it } from 'vitest';
import {
  CLEARING_ACCOUNT,
  cardPaymentLegs,
  cardPaymentsOn,
  type LedgerRow,
  pairTransfers,
  type WorkspaceEntry,
} from '../src/index.js';

// The pairing of an import's card payments with what the workspace holds (pure: the entries are given).

const row = (line: number, account: string, amount: string, ts: string, currency = 'USD'): LedgerRow => ({
  line,
  ts,
  account_id: account,
  amount,
  currency,
  kind: amount.startsWith('-') ? 'spend' : 'income',
  category: null,
  counterparty: null,
  note: null,
  event_id: null,
  external_id: `csv:${account}:${line}`,
});
const entry = (
  id: string,
  account: string,
  amount: string,
  ts: string,
  more: Partial<WorkspaceEntry> = {},
) => ({
  entry_id: id,
  ts,
  account_id: account,
  amount,
  currency: 'USD',
  kind: amount.startsWith('-') ? 'spend' : 'income',
  // What the paying account's statement says: the card's settlement.
  counterparty: 'AMEX AUTOPAY',
  event_id: null,
  external_id: `csv:${id}`,
  ...more,
});
const payment = cardPaymentLegs(row(3, 'amex', '500.00', '2026-03-18'));

describe('pairTransfers', () => {
  it('pairs the nearest entry of the opposite amount within seven days, in no event, on another account', () => {
    const found = [
      entry('far', 'checking', '-500', '2026-03-10T00:00:00Z'),
      entry('near', 'savings', '-500.00', '2026-03-16T00:00:00Z'),
      entry('evented', 'checking', '-500', '2026-03-18T00:00:00Z', { event_id: 'split-1' }),
      entry('euro', 'checking', '-500', '2026-03-18T00:00:00Z', { currency: 'EUR' }),
      entry('other', 'checking', '-499.99', '2026-03-18T00:00:00Z'),
      // The nearest of the same amount, but nothing says it settles a card: a rent stays spending.
      entry('rent', 'checking', '-500', '2026-03-17T00:00:00Z', { counterparty: 'RENT MARCH', note: null }),
    ];
    const paired = pairTransfers(payment, found);
    expect(paired.rows).toEqual([]);
    expect(paired.steps.map((s) => [s.kind, s.entry.entry_id])).toEqual([['pair', 'near']]);
    expect(paired.notes).toEqual(['line 3: transfer, matched to savings 2026-03-16']);
  });

  it('keeps the clearing leg when nothing fits, and plans an imported file as it did the first time', () => {
    const alone = pairTransfers(payment, [entry('far', 'checking', '-500', '2026-03-10T23:59:59Z')]);
    expect(alone.rows.map((r) => r.account_id)).toEqual(['amex', CLEARING_ACCOUNT]);
    expect(alone.notes).toEqual([
      `line 3: transfer, other side not yet imported (held on ${CLEARING_ACCOUNT})`,
    ]);
    const [leg, clearing] = payment;
    const event = { kind: 'transfer', event_id: leg.event_id };
    // Held on the clearing account (both legs written together): the same two rows, which the insert skips.
    const held = pairTransfers(payment, [
      entry('l', 'amex', '500', '2026-03-18', { ...event, external_id: leg.external_id, inserted_at: 't1' }),
      entry('c', CLEARING_ACCOUNT, '-500', '2026-03-18', {
        ...event,
        external_id: clearing.external_id,
        inserted_at: 't1',
      }),
    ]);
    expect([held.rows, held.steps]).toEqual([payment, []]);
    // Paired with an entry written before: the same pair step, which now changes nothing.
    const paired = pairTransfers(payment, [
      entry('l', 'amex', '500', '2026-03-18', { ...event, external_id: leg.external_id, inserted_at: 't2' }),
      entry('p', 'checking', '-500', '2026-03-15', { ...event, inserted_at: 't1' }),
    ]);
    expect(paired.rows).toEqual([]);
    expect(paired.steps.map((s) => [s.kind, s.entry.entry_id])).toEqual([['pair', 'p']]);
  });

  it("moves a waiting clearing leg onto the paying row's account, never onto the card it came from", () => {
    const waiting = [
      entry('leg', 'amex', '500', '2026-03-18', { kind: 'transfer', event_id: 'transfer:e' }),
      entry('clear', CLEARING_ACCOUNT, '-500', '2026-03-18', { kind: 'transfer', event_id: 'transfer:e' }),
    ];
    const charge = row(2, 'amex', '-500.00', '2026-03-19');
    const paid = { ...row(4, 'checking', '-500.00', '2026-03-15'), counterparty: 'AMEX EPAYMENT' };
    const twice = { ...row(5, 'checking', '-500.00', '2026-03-16'), note: 'Credit card payment' };
    const rent = { ...row(6, 'checking', '-500.00', '2026-03-18'), counterparty: 'Landlord' };
    const paired = pairTransfers([charge, paid, twice, rent], waiting);
    // The nearer of the two checking rows that say they settle a card is the other side; the card's own charge
    // never is, nor the rent of the same amount on the payment's day.
    expect(paired.rows).toEqual([charge, paid, rent]);
    expect(paired.steps.map((s) => [s.kind, s.row.line, s.entry.entry_id])).toEqual([['move', 5, 'clear']]);
    expect(paired.notes).toEqual(['line 5: transfer, matched to amex 2026-03-18']);
  });
});

it('a row moved onto its account before is planned as the same move again', () => {
  const paid = row(4, 'checking', '-500.00', '2026-03-15');
  const event = { kind: 'transfer', event_id: 'transfer:e', inserted_at: 't1' };
  const plan = pairTransfers(
    [paid],
    [
      entry('leg', 'amex', '500', '2026-03-18', event),
      entry('moved', 'checking', '-500', '2026-03-15', { ...event, external_id: paid.external_id }),
    ],
  );
  expect(plan.steps.map((s) => [s.kind, s.row.line, s.entry.entry_id])).toEqual([['move', 4, 'moved']]);
  expect(plan.notes).toEqual(['line 4: transfer, matched to amex 2026-03-18']);
});

it("an account the workspace keeps as a credit card: its payments in are transfers, other accounts' are not", () => {
  const paid = { ...row(2, 'visa', '500.00', '2026-03-18'), counterparty: 'PAYMENT - THANK YOU' };
  const refund = { ...row(3, 'visa', '12.00', '2026-03-19'), counterparty: 'REFUND BOOKSHOP' };
  const salary = { ...row(4, 'checking', '900.00', '2026-03-19'), counterparty: 'Payment ACME payroll' };
  const rows = cardPaymentsOn([paid, refund, salary], new Set(['visa']));
  expect(rows.map((r) => `${r.account_id} ${r.amount} ${r.kind}`)).toEqual([
    'visa 500.00 transfer',
    `${CLEARING_ACCOUNT} -500.00 transfer`,
    'visa 12.00 income',
    'checking 900.00 income',
  ]);
});
