import { describe, expect, it } from 'vitest';
import {
  CLEARING_ACCOUNT,
  cardPaymentLegs,
  cardPaymentsOn,
  type LedgerRow,
  pairTransfers,
  prepareImport,
  type WorkspaceEntry,
} from '../src/index.js';
import { keepTypeWords, typeColumns } from '../src/transfers/type-words.js';

// A card's payment is told by its words (issue 37): many banks write PAYMENT, Zahlung or Paiement only in a type
// column, which the reader maps elsewhere or leaves out. Those words count as the payee's and the note's do (kept
// in the row's note, so the entry stored from it says so too), and an equal amount within a week still never
// makes a transfer without them.

const hooks = {
  chooseDateFormat: async () => {
    throw new Error('not asked');
  },
  workspaceCurrency: async () => 'USD',
};
const read = async (text: string, account: string) =>
  (
    await prepareImport(
      { fileName: `${account}.csv`, bytes: new TextEncoder().encode(text), account, currency: 'USD' },
      hooks,
    )
  ).rows as LedgerRow[];

/** The card's payment of 500 on 2026-03-18 waiting on the clearing account, with the card's leg. */
const waiting = (): WorkspaceEntry[] => {
  const [leg, clearing] = cardPaymentLegs({
    line: 3,
    ts: '2026-03-18',
    account_id: 'amex',
    amount: '500.00',
    currency: 'USD',
    kind: 'income',
    category: null,
    counterparty: 'PAYMENT RECEIVED',
    note: null,
    event_id: null,
    external_id: 'csv:amex:3',
  });
  const stored = (r: LedgerRow, id: string): WorkspaceEntry => ({
    entry_id: id,
    ts: `${r.ts}T00:00:00Z`,
    account_id: r.account_id,
    amount: r.amount,
    currency: r.currency,
    kind: r.kind,
    counterparty: r.counterparty,
    note: r.note,
    event_id: r.event_id,
    external_id: r.external_id,
    inserted_at: '2026-03-20T10:00:00Z',
  });
  return [stored(leg, 'card-leg'), stored(clearing, 'clearing-leg')];
};

const CHECKING = (type: string) => `Date,Description,${type ? 'Type,' : ''}Amount,Balance
2026-03-13,ACME SALARY,${type ? 'CREDIT,' : ''}3000.00,4000.00
2026-03-15,ONLINE TRANSFER REF 88231,${type ? `${type},` : ''}-500.00,3500.00
2026-03-16,RENT MARCH,${type ? 'DEBIT,' : ''}-500.00,3000.00
`;

describe("a type column's words", () => {
  it('finds the columns that say what kind of movement a row is, whatever their role', () => {
    expect(
      typeColumns(['Date', 'Transaction Type', 'Description', 'Umsatzart', 'Typ', 'Amount', 'Mutatiesoort']),
    ).toEqual([1, 3, 4, 6]);
    expect(typeColumns(['Date', 'Description', 'Amount'])).toEqual([]);
  });

  it.each([
    ['PAYMENT', 'en'],
    ['Zahlung', 'de'],
    ['Paiement', 'fr'],
  ])('"%s" in a type column moves the waiting card payment onto the account that paid (%s)', async (type) => {
    const rows = await read(CHECKING(type), 'checking');
    const paid = rows.find((r) => r.line === 3)!;
    expect(paid.note).toContain(type);
    const paired = pairTransfers(rows, waiting());
    expect(paired.steps.map((s) => [s.kind, s.row.line, s.entry.entry_id])).toEqual([
      ['move', 3, 'clearing-leg'],
    ]);
    // The rent of the same amount two days off says DEBIT: spending, untouched.
    expect(rows.find((r) => r.line === 4)!.note ?? '').not.toMatch(/DEBIT/);
  });

  it('without them the same amount in the same week is not a transfer', async () => {
    for (const text of [CHECKING(''), CHECKING('TRANSFER')]) {
      const rows = await read(text, 'checking');
      expect(pairTransfers(rows, waiting()).steps).toEqual([]);
    }
  });

  it("the entry stored from the row keeps them: the card's file imported later pairs with it", async () => {
    const rows = await read(CHECKING('PAYMENT'), 'checking');
    const found: WorkspaceEntry[] = rows.map((r, i) => ({
      entry_id: `e${i}`,
      ts: `${r.ts}T00:00:00Z`,
      account_id: r.account_id,
      amount: r.amount,
      currency: r.currency,
      kind: r.kind,
      counterparty: r.counterparty,
      note: r.note,
      event_id: null,
      external_id: r.external_id,
    }));
    const card = cardPaymentLegs({
      ...rows[0]!,
      line: 3,
      ts: '2026-03-18',
      account_id: 'amex',
      amount: '500.00',
      kind: 'income',
      counterparty: 'THANK YOU',
      note: null,
      external_id: 'csv:amex:3',
    });
    const paired = pairTransfers(card, found);
    expect(paired.steps.map((s) => [s.kind, s.entry.counterparty])).toEqual([
      ['pair', 'ONLINE TRANSFER REF 88231'],
    ]);
  });

  it("a card account's payment told only by its type column is a transfer", () => {
    const row: LedgerRow = {
      line: 2,
      ts: '2026-03-18',
      account_id: 'visa',
      amount: '500.00',
      currency: 'USD',
      kind: 'income',
      category: null,
      counterparty: 'ONLINE TRANSFER',
      note: null,
      event_id: null,
      external_id: 'csv:visa:2',
    };
    const kept = keepTypeWords(
      [row],
      [{ line: 2, values: ['2026-03-18', 'ONLINE TRANSFER', 'Payment', '500.00'] }],
      [2],
    );
    expect(kept[0]!.note).toBe('Payment');
    const legs = cardPaymentsOn(kept, new Set(['visa']));
    expect(legs.map((l) => [l.account_id, l.kind])).toEqual([
      ['visa', 'transfer'],
      [CLEARING_ACCOUNT, 'transfer'],
    ]);
    // A fee's row and a clearing leg keep their own words; a row whose words say it already is unchanged.
    const fee = { ...row, external_id: 'csv:visa:2:fee' };
    expect(keepTypeWords([fee], [{ line: 2, values: ['Payment'] }], [0])).toEqual([fee]);
    const said = { ...row, counterparty: 'AUTOPAY THANK YOU' };
    expect(keepTypeWords([said], [{ line: 2, values: ['Payment'] }], [0])).toEqual([said]);
    // A type that names how money moved is not a card's payment: Monzo writes `Card payment` on a purchase made
    // with the card and `Faster payment` on money that came in; their notes stay as the bank wrote them.
    for (const type of ['Card payment', 'Faster payment', 'Direct Debit payment', 'Zahlung per Karte']) {
      expect(keepTypeWords([row], [{ line: 2, values: [type] }], [0]), type).toEqual([row]);
    }
    for (const type of ['PAYMENT', 'Payment - Thank You', 'Zahlung']) {
      expect(keepTypeWords([row], [{ line: 2, values: [type] }], [0])[0]?.note, type).toBe(type);
    }
  });
});
