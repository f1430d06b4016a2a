import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// The corpus of @expense/import (exports of banks and cards in their published layouts, CSV, OFX/QFX, QIF,
// CAMT.053 and MT940) through the built CLI against the built server, with no option at all and no terminal:
// the account is the one the file names (or, for a file that names none, the only question, answered here by
// --account), the rows are the expected ones, the statements reconcile, and a second run adds nothing.

const EXPORTS = resolve(import.meta.dirname, '../../../../../import/test/fixtures/exports');

interface Expected {
  format: string;
  accounts: string[];
  rows: [string, string, string, string | null][];
}

/** One of each format, and CSVs of several countries (the unit corpus test reads them all). */
const FILES = [
  'us-chase-card.qfx',
  'ca-rbc-chequing.ofx',
  'us-quicken.qif',
  'ch-postfinance.camt053.xml',
  'de-sparkasse.sta',
  'nl-ing.csv',
  'uk-nationwide.csv',
  'de-comdirect.csv',
  'us-discover.csv',
  'pl-mbank.csv',
];

/** Card payments whose other side waits on the clearing account (issue 37): said apart, not counted as rows. */
const HELD: Record<string, number> = { 'us-chase-card.qfx': 1, 'us-discover.csv': 1 };

describe('expense import of exports in any layout, with no options', () => {
  let sandbox: Sandbox;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const rowsOf = async (accounts: string[]) => {
    const list = accounts.map((a) => `'${a.replaceAll("'", "''")}'`).join(', ');
    const r = await run([
      'query',
      `SELECT ts::date || ' ' || amount || ' ' || currency FROM ledger_entries WHERE account_id IN (${list}) ORDER BY ts, amount`,
      '--format',
      'csv',
    ]);
    expect(r.code).toBe(0);
    return r.stdout.trimEnd().split('\n').slice(1);
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-bank-exports-');
    const login = await loginWithoutTty(
      sandbox.env,
      sandbox.server.outbox,
      'exports@example.com',
      new Set(),
      ['--insecure-storage'],
    );
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Exports'])).code).toBe(0);
    expect((await run(['use', 'Exports'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('has the corpus', () => {
    expect(readdirSync(EXPORTS).length).toBeGreaterThan(80);
  });

  for (const file of FILES) {
    it(`${file}: the rows it holds, under the account it names; again adds nothing`, async () => {
      const expected = JSON.parse(
        readFileSync(join(EXPORTS, file.replace(/\.[a-z]+$/, '.expected.json')), 'utf8'),
      ) as Expected;
      const named = !expected.accounts.includes('asked');
      const stem = file.replace(/\..*$/, '');
      const accounts = named ? expected.accounts : [stem];
      const args = ['import', join(EXPORTS, file), '--yes', ...(named ? [] : ['--account', stem])];
      const first = await run(args);
      expect(first.stderr).toContain(`${expected.rows.length} inserted`);
      if (HELD[file])
        expect(first.stderr).toContain(
          `(${HELD[file]} of them a card payment whose other side waits on unmatched-transfers`,
        );
      expect(first.code).toBe(0);
      if (expected.format !== 'csv') expect(first.stderr).toMatch(/Recognised: (OFX|QFX|QIF|CAMT|MT940)/);
      const want = expected.rows
        .map(([date, amount, currency]) => `${date} ${amount} ${currency}`)
        .sort((a, b) => a.localeCompare(b));
      const got = (await rowsOf(accounts)).sort((a, b) => a.localeCompare(b));
      expect(got).toEqual(want);
      const again = await run(args);
      expect(again.stderr).toContain(`0 inserted, ${expected.rows.length} skipped as already present`);
      expect(again.code).toBe(0);
    });
  }

  it('a statement that does not reconcile, a zip and a card whose sign cannot be told are refused; nothing is sent', async () => {
    const dir = sandbox.dir.path;
    const { writeFile } = await import('node:fs/promises');
    const unbalanced = join(dir, 'unbalanced.sta');
    await writeFile(
      unbalanced,
      ':20:X\n:25:NL91ABNA0417164300\n:60F:C260301EUR100,00\n:61:2603020302D10,00NTRFNONREF\n:62F:C260302EUR95,00\n-\n',
    );
    const u = await run(['import', unbalanced, '--yes']);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('import_unbalanced');
    expect(u.stderr).toContain('a difference of 5.00');
    const zip = join(dir, 'export.csv');
    await writeFile(zip, Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]));
    const z = await run(['import', zip, '--account', 'x', '--yes']);
    expect(z.code).toBe(1);
    expect(z.stderr).toContain('import_unreadable');
    const card = join(dir, 'card.csv');
    await writeFile(
      card,
      'Credit Card Statement\nDate,Merchant,Amount\n03/14/2026,COFFEE,4.50\n03/15/2026,GROCER,82.13\n',
    );
    const c = await run(['import', card, '--account', 'card', '--yes']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('--charges-positive');
    const told = await run(['import', card, '--account', 'card', '--charges-positive', '--yes']);
    expect(told.code).toBe(0);
    expect(await rowsOf(['card'])).toEqual(['2026-03-14 -4.50 USD', '2026-03-15 -82.13 USD']);
  });
});
