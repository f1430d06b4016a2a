import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LedgerRow } from '@expense/import';
import { decodeBytes, detectDecimalComma, recognise } from '@expense/import';
import { describe, expect, it } from 'vitest';
import { type ImportRequest, prepareImport } from '../prepare.js';

const BANKS = resolve(import.meta.dirname, '../../../test/fixtures/banks');
const bytes = (file: string) => readFileSync(join(BANKS, file));
const text = (file: string) => decodeBytes(bytes(file)).text;
const hooks = {
  chooseDateFormat: async () => {
    throw new Error('asked for the date order');
  },
  workspaceCurrency: async () => 'CHF',
};
const prepare = (file: string, more: Partial<ImportRequest> = {}) =>
  prepareImport({ fileName: file, bytes: bytes(file), account: 'acct', ...more }, hooks);

// The pure recognition and preparation of an import (what a browser page would run), on the bank fixtures.
describe('recognising bank files', () => {
  it('decodes UTF-8 with and without a BOM, else Windows-1252 (the euro sign at 0x80)', () => {
    expect(decodeBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toEqual({
      text: 'A',
      encoding: 'utf8',
      bom: true,
    });
    expect(decodeBytes(new Uint8Array([0x80, 0x20, 0xe4]))).toEqual({
      text: '€ ä',
      encoding: 'windows-1252',
      bom: false,
    });
    expect(() => decodeBytes(new Uint8Array([0xe4]), 'utf8')).toThrow();
  });

  it('finds the header below a preamble, a trailing comma on data rows only, and a file without a header', () => {
    const ing = recognise(text('ing-de.csv'));
    expect(ing.bank?.name).toBe('ing-de');
    expect(ing.table.headerLine).toBe(15);
    expect(ing.table.delimiter).toBe(';');
    const chase = recognise(text('chase-checking.csv'));
    expect(chase.table.header).toHaveLength(7);
    expect(chase.table.records.every((r) => r.values.length === 7)).toBe(true);
    const wells = recognise(text('wells-fargo.csv'));
    expect(wells.bank?.name).toBe('wells-fargo');
    expect(wells.table.records).toHaveLength(4);
    const plain = recognise('2026-03-14,-4.50,Coffee\n2026-03-15,-82.13,Groceries\n');
    expect(plain.table.headerless).toBe(true);
    expect(plain.bank).toBeUndefined();
  });

  it('tells a decimal comma from its digits', () => {
    expect(detectDecimalComma(['-4,50', '1.234,56'])).toBe(true);
    expect(detectDecimalComma(['-4.50', '1,234.56'])).toBe(false);
    expect(detectDecimalComma(['1.234', '12'])).toBeUndefined();
  });

  it("books fees as entries of their own and leaves out what is not booked; the workspace's currency when none", async () => {
    const revolut = await prepare('revolut-fees.csv');
    const fees = (revolut.rows as LedgerRow[]).filter((r) => r.category === 'fees');
    expect(fees.map((r) => r.amount)).toEqual(['-0.50', '-1.00']);
    expect(revolut.left.map((l) => l.reason)).toEqual([
      'State is REVERTED',
      'State is PENDING',
      'State is DECLINED',
    ]);
    const generic = await prepare('generic-us.csv');
    expect(generic.rows.every((r) => r.currency === 'CHF')).toBe(true);
  });

  it('derives the duplicate key from the raw row, whatever --map says', async () => {
    const ids = async (more: Partial<ImportRequest>) =>
      (await prepare('chase-checking.csv', more)).rows.map((r) => ('external_id' in r ? r.external_id : ''));
    const plain = await ids({});
    expect(await ids({ map: ['Description=note', 'Type=category'] })).toEqual(plain);
    expect(await ids({ account: 'other' })).not.toEqual(plain);
    const later = await ids({});
    expect(later).toEqual(plain);
    const overlap = (await prepare('chase-checking-later.csv')).rows.map((r) =>
      'external_id' in r ? r.external_id : '',
    );
    expect(overlap.filter((id) => plain.includes(id))).toHaveLength(2);
  });
});
