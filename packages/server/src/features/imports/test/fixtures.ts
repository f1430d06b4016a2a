// What the import suites share: three exports of @expense/import's corpus and the rows the reader gives them.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LedgerRow, prepareImport } from '@expense/import';

export const EXPORTS = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../import/test/fixtures/exports',
);
export const fixture = (name: string) => new Uint8Array(readFileSync(join(EXPORTS, name)));

/** One CSV in no bank's layout, a card with positive charges (its preset), a statement (OFX). */
export const FILES = [
  { name: 'wise.csv', account: 'asked' },
  { name: 'uk-amex-uk.csv', account: 'asked' },
  { name: 'ca-rbc-chequing.ofx', account: undefined },
] as const;

/** A card export whose sign nothing tells. */
export const AMBIGUOUS_CARD = `Credit Card Statement,****4321
Date,Merchant,Amount
03/14/2026,COFFEE ROASTERS,4.50
03/15/2026,GROCERY OUTLET,82.13
03/18/2026,BOOKSHOP,19.99
`;

/** The rows as the reader gives them, without asking (the CLI's path with --account). */
export async function readerRows(name: string, account: string | undefined): Promise<LedgerRow[]> {
  const prepared = await prepareImport(
    { fileName: name, bytes: fixture(name), ...(account ? { account } : {}) },
    {
      chooseDateFormat: async () => {
        throw new Error('not asked');
      },
      workspaceCurrency: async () => 'USD',
    },
  );
  return prepared.rows as LedgerRow[];
}
