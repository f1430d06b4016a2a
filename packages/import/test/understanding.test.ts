import { describe, expect, it } from 'vitest';
import { otherParty, partiesOf } from '../src/csv/parties.js';
import { rolesOf } from '../src/csv/words.js';
import {
  CLEARING_ACCOUNT,
  detectDateFormat,
  ImportError,
  type ImportHooks,
  type LedgerRow,
  parseTimestamp,
  prepareImport,
} from '../src/index.js';

// What the second corpus taught the general reader, each held on its own (the corpus holds the whole files).

const corpusHooks: ImportHooks = {
  chooseDateFormat: async (_formats, example) => {
    throw new Error(`dates read two ways: ${example}`);
  },
  workspaceCurrency: async () => 'USD',
  account: async (named) => named ?? 'asked',
};
const bytes = (text: string) => new TextEncoder().encode(text);
const read = async (text: string, fileName = 'export.csv') => {
  const p = await prepareImport({ fileName, bytes: bytes(text) }, corpusHooks);
  // A card payment's other leg waits on the clearing account: the file's own rows are the rest.
  return (p.rows as LedgerRow[])
    .filter((r) => r.account_id !== CLEARING_ACCOUNT)
    .map((r) => [r.ts.slice(0, 10), r.amount, r.counterparty]);
};

describe('header words', () => {
  it('keep the side a bracket names and drop a unit', () => {
    expect(rolesOf('Amount (debit)')).toContain('out');
    expect(rolesOf('Amount (credit)')).toContain('in');
    expect(rolesOf('Betrag (EUR)')).toContain('amount');
  });
  it('read a header of two names for one column and gendered German words', () => {
    expect(rolesOf('Sender / Empfänger')).toContain('payee');
    expect(rolesOf('Saaja/Maksaja')).toContain('payee');
    expect(rolesOf('Zahlungsempfänger*in')).toContain('payee');
    expect(rolesOf('Account #')).toContain('account');
    expect(rolesOf('Libellés')).toContain('description');
  });
});

describe('payer and payee columns', () => {
  it('name the side that is not the holder, whichever way the money goes', () => {
    const header = ['Datum', 'Maksaja', 'Saajan nimi', 'Summa'];
    const records = [
      ['16.03.2026', 'MATTI M', 'PRISMA', '-32,40'],
      ['15.03.2026', 'ACME OY', 'MATTI M', '2450,00'],
      ['11.03.2026', 'MATTI M', 'ELISA OYJ', '-79,90'],
    ].map((values, i) => ({ line: i + 2, values }));
    const parties = partiesOf(header, records)!;
    expect(parties.holder).toBe('MATTI M');
    expect(records.map((r) => otherParty(r.values, parties))).toEqual(['PRISMA', 'ACME OY', 'ELISA OYJ']);
  });
  it('say nothing when no name is on both sides', () => {
    const records = [
      { line: 2, values: ['A', 'B'] },
      { line: 3, values: ['C', 'D'] },
    ];
    expect(partiesOf(['Payer', 'Payee'], records)).toBeUndefined();
  });
  it('find the holder of a file whose money goes one way only: the one name of a side', () => {
    const header = ['Buchungsdatum', 'Zahlungspflichtige*r', 'Zahlungsempfänger*in', 'Betrag (€)'];
    const incoming = [
      ['31.03.26', 'DKB AG', 'Erika Mustermann', '4,17'],
      ['15.03.26', 'ACME GmbH', 'Erika Mustermann', '1.000,00'],
    ].map((values, i) => ({ line: i + 6, values }));
    const parties = partiesOf(header, incoming)!;
    expect(parties.holder).toBe('Erika Mustermann');
    expect(incoming.map((r) => otherParty(r.values, parties))).toEqual(['DKB AG', 'ACME GmbH']);
    const outgoing = [
      ['16.03.26', 'Erika Mustermann', 'REWE Markt GmbH', '-45,67'],
      ['10.03.26', 'Erika Mustermann', 'Stadtwerke Berlin', '-72,00'],
    ].map((values, i) => ({ line: i + 6, values }));
    expect(partiesOf(header, outgoing)?.holder).toBe('Erika Mustermann');
  });
  it('say nothing when one side has one name and the other one name too (one counterparty throughout)', () => {
    const records = [
      { line: 2, values: ['ACME GmbH', 'Erika Mustermann'] },
      { line: 3, values: ['ACME GmbH', 'Erika Mustermann'] },
    ];
    expect(partiesOf(['Zahlungspflichtige*r', 'Zahlungsempfänger*in'], records)).toBeUndefined();
    expect(partiesOf(['Payer', 'Payee'], [{ line: 2, values: ['ACME', 'Erika'] }])).toBeUndefined();
  });
});

describe('dates', () => {
  it('take a zone abbreviation as its offset', () => {
    expect(parseTimestamp('2026-03-16 18:22:10 EDT')).toEqual({
      ok: true,
      value: '2026-03-16T18:22:10-04:00',
    });
    expect(parseTimestamp('2026-03-16 18:22 XYZ')).toEqual({ ok: true, value: '2026-03-16T18:22' });
  });
  it('stay ambiguous on their own when no day is past the 12th', () => {
    expect(detectDateFormat(['03/03/2026', '05/03/2026', '11/03/2026']).kind).toBe('ambiguous');
  });
  it('are day-first in a file whose amounts have decimal commas', async () => {
    expect(
      await read(
        'Datum;Omschrijving;Bedrag\n03/03/2026;Bakker;-4,50\n05/03/2026;Loon;1200,00\n11/03/2026;Huur;-650,00\n',
      ),
    ).toEqual([
      ['2026-03-03', '-4.50', 'Bakker'],
      ['2026-03-05', '1200.00', 'Loon'],
      ['2026-03-11', '-650.00', 'Huur'],
    ]);
  });
  it('are asked for when the amounts have decimal points', async () => {
    await expect(
      read('Date,Description,Amount\n03/03/2026,Bakery,-4.50\n05/03/2026,Salary,1200.00\n'),
    ).rejects.toThrow(/dates read two ways/);
  });
});

describe('a card whose charges are positive', () => {
  it('is told by a payment received written negative, even when payments and refunds are half the rows', async () => {
    expect(
      await read(
        '16 Mar 2026,TESCO,45.67\n14 Mar 2026,PAYMENT RECEIVED - THANK YOU,-300.00\n10 Mar 2026,TRAINLINE,62.10\n08 Mar 2026,AMAZON REFUND,-12.99\n',
      ),
    ).toEqual([
      ['2026-03-16', '-45.67', 'TESCO'],
      ['2026-03-14', '300.00', 'PAYMENT RECEIVED - THANK YOU'],
      ['2026-03-10', '-62.10', 'TRAINLINE'],
      ['2026-03-08', '12.99', 'AMAZON REFUND'],
    ]);
  });
  it('is not an account whose card purchases say payment', async () => {
    expect(await read('16/03/2026,CARD PAYMENT TO TESCO,-45.67\n14/03/2026,ACME SALARY,2000.00\n')).toEqual([
      ['2026-03-16', '-45.67', 'CARD PAYMENT TO TESCO'],
      ['2026-03-14', '2000.00', 'ACME SALARY'],
    ]);
  });
});

describe('headerless files', () => {
  it('tell money out from money in by the card payments written in one of them', async () => {
    expect(
      await read(
        '2026-03-03,SAFEWAY,45.67,\n2026-03-08,PAYMENT THANK YOU,,500.00\n2026-03-11,SHOPPERS,23.10,\n',
      ),
    ).toEqual([
      ['2026-03-03', '-45.67', 'SAFEWAY'],
      ['2026-03-08', '500.00', 'PAYMENT THANK YOU'],
      ['2026-03-11', '-23.10', 'SHOPPERS'],
    ]);
  });
  it('refuse two money columns that nothing tells apart, naming the option', async () => {
    const refused = await read(
      '2026-03-03,SAFEWAY,45.67,\n2026-03-08,ACME PAYROLL,,500.00\n2026-03-11,SHOPPERS,23.10,\n',
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImportError);
    expect((refused as ImportError).message + (refused as ImportError).hint).toMatch(/--columns/);
  });
  it('name the counterparty by the text after a column of counter-accounts, without its quotes', async () => {
    const line = (d: string, iban: string, name: string, amount: string, text: string) =>
      `${d},NL45ASNB0708091234,${iban},${name},EUR,${amount},'${text}'`;
    expect(
      await read(
        [
          line('10-03-2026', 'NL20INGB0001234567', 'VATTENFALL', '-60.00', 'Termijnbedrag'),
          line('14-03-2026', 'BE71096123456769', 'ACME BV', '2000.00', 'Salaris maart'),
          line('16-03-2026', '', 'ALBERT HEIJN 1234', '-45.67', 'Betaalautomaat ALBERT HEIJN'),
        ].join('\n'),
      ),
    ).toEqual([
      ['2026-03-10', '-60.00', 'VATTENFALL'],
      ['2026-03-14', '2000.00', 'ACME BV'],
      ['2026-03-16', '-45.67', 'ALBERT HEIJN 1234'],
    ]);
  });
  it('leave out a closing balance line of a date and an amount only', async () => {
    const p = await prepareImport(
      {
        fileName: 'lcl.csv',
        bytes: bytes(
          '16/03/2026;-45,67;Carte;;CB MONOPRIX;;\n14/03/2026;2100,00;Virement;;VIR ACME;;\n31/03/2026;2054,33;;;;;\n',
        ),
      },
      corpusHooks,
    );
    expect(p.rows).toHaveLength(2);
    expect(p.left.map((l) => l.reason)).toEqual(['a balance line']);
  });
});
