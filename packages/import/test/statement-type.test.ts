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

// A card statement says a payment in by its own type too (issue 37): OFX's TRNTYPE PAYMENT on a CCSTMTRS, whose
// NAME may be only THANK YOU or empty. That type counts as the row's words do (kept in its note); a DEBIT of the
// same amount stays what it is, and the amount and the week alone never make a transfer.

const hooks = {
  chooseDateFormat: async () => {
    throw new Error('not asked');
  },
  workspaceCurrency: async () => 'USD',
};

const trn = (type: string, date: string, amount: string, id: string, name: string | undefined) =>
  `<STMTTRN>
<TRNTYPE>${type}
<DTPOSTED>${date}120000[0:GMT]
<TRNAMT>${amount}
<FITID>${id}
${name === undefined ? '' : `<NAME>${name}\n`}</STMTTRN>`;

const ofx = (statement: 'CCSTMTRS' | 'STMTRS', transactions: string[]) => `OFXHEADER:100
DATA:OFXSGML
VERSION:102

<OFX>
<CREDITCARDMSGSRSV1>
<CCSTMTTRNRS>
<${statement}>
<CURDEF>USD
<${statement === 'CCSTMTRS' ? 'CCACCTFROM' : 'BANKACCTFROM'}>
<ACCTID>4266841234567890
</${statement === 'CCSTMTRS' ? 'CCACCTFROM' : 'BANKACCTFROM'}>
<BANKTRANLIST>
${transactions.join('\n')}
</BANKTRANLIST>
</${statement}>
</CCSTMTTRNRS>
</CREDITCARDMSGSRSV1>
</OFX>
`;

const read = async (text: string, account = 'visa') =>
  (
    await prepareImport(
      { fileName: `${account}.qfx`, bytes: new TextEncoder().encode(text), account, currency: 'USD' },
      hooks,
    )
  ).rows as LedgerRow[];

/** The checking account's payment of the card, already in the workspace. */
const checking = (note: string): WorkspaceEntry => ({
  entry_id: 'checking-1',
  ts: '2026-03-10T00:00:00Z',
  account_id: 'checking',
  amount: '-500.00',
  currency: 'USD',
  kind: 'spend',
  counterparty: note,
  note: null,
  event_id: null,
  external_id: 'csv:checking:7',
});

describe("a card statement's own type", () => {
  it.each([
    ['THANK YOU', 'THANK YOU'],
    ['an empty NAME', undefined],
    ['ONLINE', 'ONLINE'],
  ])('TRNTYPE PAYMENT named %s is a transfer that pairs with the checking entry', async (_, name) => {
    const rows = await read(ofx('CCSTMTRS', [trn('PAYMENT', '20260312', '500.00', 'P1', name)]));
    const legs = rows.filter((r) => r.kind === 'transfer');
    expect(legs.map((r) => r.account_id)).toEqual(['visa', CLEARING_ACCOUNT]);
    const leg = legs[0]!;
    expect(`${leg.counterparty ?? ''} ${leg.note ?? ''}`).toMatch(/PAYMENT|THANK YOU/);
    const paired = pairTransfers(rows, [checking('CHASE CREDIT CRD AUTOPAY')]);
    expect(paired.steps).toEqual([{ kind: 'pair', row: leg, entry: checking('CHASE CREDIT CRD AUTOPAY') }]);
    expect(paired.rows).toEqual([]);
    expect(paired.notes).toEqual(['line 14: transfer, matched to checking 2026-03-10']);
  });

  it('keeps the type in the note only when the row does not say it already', async () => {
    const [kept] = await read(ofx('CCSTMTRS', [trn('PAYMENT', '20260312', '500.00', 'P1', 'ONLINE')]));
    expect(kept).toMatchObject({ counterparty: 'ONLINE', note: 'PAYMENT', kind: 'transfer' });
    const [own] = await read(
      ofx('CCSTMTRS', [trn('PAYMENT', '20260312', '500.00', 'P1', 'PAYMENT THANK YOU')]),
    );
    expect(own).toMatchObject({ counterparty: 'PAYMENT THANK YOU', note: null, kind: 'transfer' });
  });

  it('an XFER whose name says payment is a transfer; one that does not stays income', async () => {
    const rows = await read(
      ofx('CCSTMTRS', [
        trn('XFER', '20260312', '500.00', 'X1', 'AUTOPAY PAYMENT'),
        trn('XFER', '20260313', '20.00', 'X2', 'BALANCE MOVE'),
      ]),
    );
    expect(rows.map((r) => [r.kind, r.account_id, r.amount])).toEqual([
      ['transfer', 'visa', '500.00'],
      ['transfer', CLEARING_ACCOUNT, '-500.00'],
      ['income', 'visa', '20.00'],
    ]);
  });

  it('a DEBIT or CREDIT of the same amount is no payment, and pairs with nothing', async () => {
    const rows = await read(
      ofx('CCSTMTRS', [
        trn('DEBIT', '20260312', '500.00', 'D1', undefined),
        trn('CREDIT', '20260312', '500.00', 'C1', 'REFUND'),
      ]),
    );
    expect(rows.map((r) => [r.kind, r.note])).toEqual([
      ['income', null],
      ['income', null],
    ]);
    const paired = pairTransfers(rows, [checking('CHASE CREDIT CRD AUTOPAY')]);
    expect(paired.steps).toEqual([]);
    expect(paired.rows).toEqual(rows);
  });

  it("a bank statement's PAYMENT out (a bill paid) keeps its words; one in says payment but stays income", async () => {
    const rows = await read(
      ofx('STMTRS', [
        trn('PAYMENT', '20260312', '-500.00', 'B1', 'CITY POWER'),
        trn('PAYMENT', '20260313', '500.00', 'B2', undefined),
      ]),
      'checking',
    );
    expect(rows.map((r) => [r.kind, r.counterparty, r.note])).toEqual([
      ['spend', 'CITY POWER', null],
      ['income', null, 'PAYMENT'],
    ]);
    // The bill is no card's settlement: a card's payment of 500 waiting on the clearing account stays there.
    const [leg, clearing] = cardPaymentLegs({ ...rows[1]!, account_id: 'visa', external_id: 'csv:visa:2' });
    const stored = (r: LedgerRow, id: string): WorkspaceEntry => ({
      ...r,
      entry_id: id,
      ts: r.ts,
      inserted_at: '2026-03-14T10:00:00Z',
    });
    const found = [stored(leg, 'card-leg'), stored(clearing, 'clearing-leg')];
    expect(pairTransfers(rows, found).steps).toEqual([]);
    // The same row naming the card would move it: only the words were missing.
    const named = rows.map((r) =>
      r.external_id === rows[0]!.external_id ? { ...r, counterparty: 'VISA' } : r,
    );
    expect(pairTransfers(named, found).steps.map((s) => s.kind)).toEqual(['move']);
    // Imported into an account the workspace keeps as a credit card, the payment in is a transfer's leg.
    expect(cardPaymentsOn(rows, new Set(['visa']))).toEqual(rows);
    expect(
      cardPaymentsOn(
        rows.map((r) => ({ ...r, account_id: 'visa' })),
        new Set(['visa']),
      ).map((r) => r.kind),
    ).toEqual(['spend', 'transfer', 'transfer']);
  });
});
