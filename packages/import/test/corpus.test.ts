import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLEARING_ACCOUNT, type ImportHooks, type LedgerRow, prepareImport } from '../src/index.js';

// The corpus (test/fixtures/exports): exports written from the published layouts of banks and cards, each with the
// rows it must give (`<name>.expected.json`), read with no option at all. The account is the one the file names;
// a file that names none gets "asked" (what a terminal answers). The workspace's currency is USD.

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'exports');

interface Expected {
  format: string;
  accounts: string[];
  /** [date, amount, currency, counterparty] per booked row, in the file's order. */
  rows: [string, string, string, string | null][];
  left: number;
  reconciled?: { opening: string; closing: string; sum: string }[];
}

export const corpusHooks: ImportHooks = {
  chooseDateFormat: async (_formats, example) => {
    throw new Error(`dates read two ways: ${example}`);
  },
  workspaceCurrency: async () => 'USD',
  account: async (named) => named ?? 'asked',
};

const files = readdirSync(DIR).filter((f) => !f.endsWith('.expected.json'));

describe('the corpus of bank exports imports with no options', () => {
  it('has the exports', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    it(file, async () => {
      const expected = JSON.parse(
        readFileSync(join(DIR, file.replace(/\.[a-z]+$/, '.expected.json')), 'utf8'),
      ) as Expected;
      const bytes = new Uint8Array(readFileSync(join(DIR, file)));
      const prepared = await prepareImport({ fileName: file, bytes }, corpusHooks);
      expect(prepared.into).toBe('ledger_entries');
      expect(prepared.format).toBe(expected.format);
      // A card payment's other leg waits on the clearing account: the file's own rows are the rest.
      const all = prepared.rows as LedgerRow[];
      for (const leg of all.filter((r) => r.account_id === CLEARING_ACCOUNT)) {
        const paid = all.find((r) => r.event_id === leg.event_id && r !== leg)!;
        expect([paid.kind, leg.kind, Number(paid.amount) + Number(leg.amount)]).toEqual([
          'transfer',
          'transfer',
          0,
        ]);
      }
      const rows = all.filter((r) => r.account_id !== CLEARING_ACCOUNT) as {
        ts: string;
        amount: string;
        currency: string;
        counterparty: string | null;
        account_id: string;
      }[];
      expect(rows.map((r) => [r.ts.slice(0, 10), r.amount, r.currency, r.counterparty])).toEqual(
        expected.rows,
      );
      expect([...new Set(rows.map((r) => r.account_id))]).toEqual(expected.accounts);
      expect(prepared.left.length).toBe(expected.left);
      if (expected.reconciled)
        expect(
          prepared.reconciliation.map(({ opening, closing, sum }) => ({ opening, closing, sum })),
        ).toEqual(expected.reconciled);
      // The same file read again gives the same duplicate keys: a re-import adds nothing.
      const again = await prepareImport({ fileName: file, bytes }, corpusHooks);
      expect(again.rows.map((r) => (r as { external_id: string }).external_id)).toEqual(
        all.map((r) => r.external_id),
      );
      expect(new Set(rows.map((r) => (r as unknown as { external_id: string }).external_id)).size).toBe(
        rows.length,
      );
    });
  }
});
