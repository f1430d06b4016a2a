import { describe, expect, it } from 'vitest';
import {
  CLEARING_ACCOUNT,
  ImportError,
  type ImportHooks,
  type LedgerRow,
  prepareImport,
} from '../src/index.js';

// A card's charges are never booked with their signs flipped, and a pending row is never booked: the sign comes
// from evidence (a balance, a payment, the columns), else the person says it (--charges-positive/negative), else
// the file is refused.

const hooks: ImportHooks = {
  chooseDateFormat: async () => {
    throw new Error('not asked');
  },
  workspaceCurrency: async () => 'USD',
  account: async () => 'card',
};
const bytes = (s: string) => new TextEncoder().encode(s);
/** The file's own rows' amounts (a card payment's other leg, on the clearing account, left out). */
const amounts = (rows: unknown[]) =>
  (rows as LedgerRow[]).filter((r) => r.account_id !== CLEARING_ACCOUNT).map((r) => r.amount);
const kinds = (rows: unknown[]) => (rows as LedgerRow[]).map((r) => `${r.account_id} ${r.amount} ${r.kind}`);

const CARD = `Credit Card Statement,****4321
Date,Merchant,Amount
03/14/2026,COFFEE ROASTERS,4.50
03/15/2026,GROCERY OUTLET,82.13
03/18/2026,BOOKSHOP,19.99
`;

describe('card signs', () => {
  it('a card file whose charges are positive, with nothing to tell, is refused with the option that settles it', async () => {
    const refused = await prepareImport({ fileName: 'card.csv', bytes: bytes(CARD) }, hooks).catch((e) => e);
    expect(refused).toBeInstanceOf(ImportError);
    expect((refused as ImportError).code).toBe('import_ambiguous_sign');
    expect((refused as ImportError).hint).toContain('--charges-positive');
    const told = await prepareImport(
      { fileName: 'card.csv', bytes: bytes(CARD), charges: 'positive' },
      hooks,
    );
    expect(amounts(told.rows)).toEqual(['-4.50', '-82.13', '-19.99']);
  });

  it('a terminal is asked, and its answer applies', async () => {
    const asked = await prepareImport(
      { fileName: 'card.csv', bytes: bytes(CARD) },
      { ...hooks, chooseCharges: async () => 'positive' },
    );
    expect(amounts(asked.rows)).toEqual(['-4.50', '-82.13', '-19.99']);
  });

  it('a payment that points the other way proves the convention', async () => {
    const file = `${CARD}03/20/2026,PAYMENT - THANK YOU,-100.00\n`;
    const read = await prepareImport({ fileName: 'card.csv', bytes: bytes(file) }, hooks);
    expect(amounts(read.rows)).toEqual(['-4.50', '-82.13', '-19.99', '100.00']);
    // The payment is a transfer from the account that paid, never income: its other leg waits on the clearing account.
    expect(kinds(read.rows).slice(3)).toEqual([
      'card 100.00 transfer',
      `${CLEARING_ACCOUNT} -100.00 transfer`,
    ]);
  });

  it("a running balance checks every row: an account's proves the sign, a card's is what is owed", async () => {
    const account = `Date,Description,Amount,Balance
03/14/2026,COFFEE,-4.50,95.50
03/15/2026,GROCERY,-82.13,13.37
03/16/2026,SALARY,2000.00,2013.37
`;
    expect(amounts((await prepareImport({ fileName: 'a.csv', bytes: bytes(account) }, hooks)).rows)).toEqual([
      '-4.50',
      '-82.13',
      '2000.00',
    ]);
    const owed = `Date,Description,Amount,Balance
03/14/2026,COFFEE,4.50,104.50
03/15/2026,GROCERY,82.13,186.63
03/16/2026,PAYMENT RECEIVED,-50.00,136.63
`;
    // No word says card: the balance (money in?) and the payment (a card's?) disagree, so it is not guessed.
    const unsure = await prepareImport({ fileName: 'c.csv', bytes: bytes(owed) }, hooks).catch((e) => e);
    expect((unsure as ImportError).code).toBe('import_ambiguous_sign');
    const titled = `Credit card account ****4321\n${owed}`;
    const read = await prepareImport({ fileName: 'c.csv', bytes: bytes(titled) }, hooks);
    expect(amounts(read.rows)).toEqual(['-4.50', '-82.13', '50.00']);
    const edited = titled.replace('186.63', '186.00');
    const refused = await prepareImport({ fileName: 'c.csv', bytes: bytes(edited) }, hooks).catch((e) => e);
    expect((refused as ImportError).code).toBe('import_unbalanced');
  });

  it('pending, authorised, declined and reverted rows are left out and counted', async () => {
    const file = `Date;Omschrijving;Bedrag;Status
14-03-2026;Bakker;-4,50;Geboekt
15-03-2026;Supermarkt;-82,13;In behandeling
16-03-2026;Boekhandel;-19,99;Geweigerd
17-03-2026;Salaris;2000,00;Geboekt
`;
    const read = await prepareImport({ fileName: 'nl.csv', bytes: bytes(file) }, hooks);
    expect(amounts(read.rows)).toEqual(['-4.50', '2000.00']);
    expect(read.left.map((l) => l.line)).toEqual([3, 4]);
  });
});
