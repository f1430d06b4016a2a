import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli, loginWithoutTty, openSandbox, type Sandbox } from './e2e/harness.js';

const BANKS = resolve(import.meta.dirname, 'fixtures/banks');

// Raw bank exports, as the banks write them, imported without preprocessing (dry runs against the built server).
describe('expense import of real bank exports', () => {
  let sandbox: Sandbox;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const importing = (file: string, ...args: string[]) =>
    run(['import', join(BANKS, file), '--account', 'checking', '--dry-run', ...args]);

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-banks-');
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'banks@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Banks'])).code).toBe(0);
    expect((await run(['use', 'Banks'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.server.stop();
    await sandbox?.dir.remove();
  });

  it('Chase: MM/DD/YYYY, no currency column, a trailing comma on every line', async () => {
    const args = ['--map', 'Posting Date=ts', '--map', 'Description=counterparty', '--currency', 'USD'];
    // 03/04/2026 reads two ways: without a terminal that is wrong usage naming the option.
    const noFormat = await importing('chase.csv', ...args);
    expect(noFormat.code).toBe(2);
    expect(noFormat.stderr).toContain('03/04/2026 is MM/DD/YYYY (March 4) or DD/MM/YYYY (April 3)');
    expect(noFormat.stderr).toContain('--date-format MM/DD/YYYY or --date-format DD/MM/YYYY');
    const noCurrency = await importing(
      'chase.csv',
      '--map',
      'Posting Date=ts',
      '--date-format',
      'MM/DD/YYYY',
    );
    expect(noCurrency.code).toBe(2);
    expect(noCurrency.stderr).toContain('--currency');
    const ok = await importing('chase.csv', ...args, '--date-format', 'MM/DD/YYYY');
    expect(ok.stderr).toContain('3 would be inserted');
    expect(ok.stderr).toContain("'2026-03-04', 'checking', '-4.50', 'USD'");
    expect(ok.code).toBe(0);
  });

  it('BofA-like: $ signs, parentheses for negatives, thousands separators', async () => {
    const ok = await importing(
      'bofa-amounts.csv',
      '--map',
      'Date=ts',
      '--map',
      'Description=note',
      '--date-format',
      'MM/DD/YYYY',
      '--currency',
      'USD',
    );
    expect(ok.stderr).toContain("'2026-03-04', 'checking', '-4.50', 'USD', 'spend'");
    expect(ok.stderr).toContain('3 would be inserted');
    expect(ok.code).toBe(0);
  });

  it('DKB: Latin-1, a preamble, semicolons, DD.MM.YY and -1.234,56; each wrong guess names the option', async () => {
    const args = [
      '--skip-lines',
      '3',
      '--map',
      'Buchungsdatum=ts',
      '--map',
      'Betrag (EUR)=amount',
      '--map',
      'Zahlungsempfänger*in=counterparty',
      '--map',
      'Verwendungszweck=note',
      '--currency',
      'EUR',
      '--date-format',
      'DD.MM.YYYY',
    ];
    const utf8 = await importing('dkb-latin1.csv', ...args, '--decimal-comma');
    expect(utf8.code).toBe(1);
    expect(utf8.stderr).toContain('--encoding latin1');
    const noComma = await importing('dkb-latin1.csv', ...args, '--encoding', 'latin1');
    expect(noComma.code).toBe(1);
    expect(noComma.stderr).toContain('--decimal-comma');
    const wrongDelimiter = await importing(
      'dkb-latin1.csv',
      '--skip-lines',
      '3',
      '--encoding',
      'latin1',
      '--delimiter',
      ',',
    );
    expect(wrongDelimiter.code).toBe(1);
    expect(wrongDelimiter.stderr).toContain("--delimiter ';'");
    const ok = await importing('dkb-latin1.csv', ...args, '--encoding', 'latin1', '--decimal-comma');
    expect(ok.stderr).toContain('3 would be inserted');
    expect(ok.stderr).toContain("'2026-03-05', 'checking', '-1234.56', 'EUR', 'spend', NULL, 'Edeka Süd'");
    expect(ok.code).toBe(0);
  });
});
