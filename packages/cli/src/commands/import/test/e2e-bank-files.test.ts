import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  plain,
  type Sandbox,
  spawnInTerminal,
} from '../../../../test/e2e/harness.js';

const BANKS = resolve(import.meta.dirname, '../../../../test/fixtures/banks');

interface Case {
  file: string;
  /** The stderr line that names the layout. */
  recognised: string;
  /** The booked rows as `date amount currency`, ordered by date and amount. */
  rows: string[];
  /** The bank's balance (or its change over the file): the sum of the rows. */
  balance: string;
  /** Rows left out as not booked (pending, authorisations, reverted, a balance line). */
  left?: number;
  /** Card payments whose other side waits on the clearing account: said apart on the first import, not counted. */
  held?: number;
}

// Each bank's export in its real layout, imported with `expense import FILE --account NAME` and nothing else
// (from a terminal, answering the one question), against the built server: exactly the booked rows, the bank's
// balance, nothing added by a second run, one change in the history, undone by one revert of a short id.
const CASES: Case[] = [
  {
    file: 'chase-checking.csv',
    recognised: 'Recognised: Chase checking (preset chase-checking)',
    rows: [
      '2026-03-10 -417.87 USD',
      '2026-03-12 2500.00 USD',
      '2026-03-13 -82.13 USD',
      '2026-03-14 -4.50 USD',
    ],
    balance: '1995.50',
  },
  {
    file: 'chase-card.csv',
    recognised: 'Recognised: Chase credit card (preset chase-card)',
    rows: [
      '2026-03-08 19.99 USD',
      '2026-03-10 500.00 USD',
      '2026-03-12 -1082.13 USD',
      '2026-03-14 -4.50 USD',
    ],
    balance: '-566.64',
    held: 1,
  },
  {
    file: 'wells-fargo.csv',
    recognised: 'Recognised: Wells Fargo (preset wells-fargo)',
    rows: [
      '2026-03-10 -82.13 USD',
      '2026-03-12 -417.87 USD',
      '2026-03-13 2500.00 USD',
      '2026-03-14 -4.50 USD',
    ],
    balance: '1995.50',
  },
  {
    file: 'capital-one.csv',
    recognised: 'Recognised: Capital One card (preset capital-one)',
    rows: ['2026-03-10 500.00 USD', '2026-03-12 -1082.13 USD', '2026-03-14 -4.50 USD'],
    balance: '-586.63',
    held: 1,
  },
  {
    file: 'bofa.csv',
    recognised: 'Recognised: Bank of America (preset bofa)',
    rows: ['2026-03-04 -4.50 USD', '2026-03-05 -82.13 USD', '2026-03-06 1234.56 USD'],
    balance: '1147.93',
    left: 1,
  },
  {
    file: 'amex.csv',
    recognised: 'Recognised: American Express (preset amex)',
    rows: ['2026-03-14 -4.50 USD', '2026-03-15 -1082.13 USD', '2026-03-20 500.00 USD'],
    balance: '-586.63',
  },
  {
    file: 'barclays.csv',
    recognised: 'Recognised: Barclays (UK) (preset barclays)',
    rows: ['2026-03-10 -82.13 GBP', '2026-03-13 2500.00 GBP', '2026-03-14 -4.50 GBP'],
    balance: '2413.37',
  },
  {
    file: 'monzo.csv',
    recognised: 'Recognised: Monzo (preset monzo)',
    rows: ['2026-03-04 -4.50 GBP', '2026-03-05 2500.00 GBP', '2026-03-13 -32.10 GBP'],
    balance: '2463.40',
  },
  {
    file: 'revolut-fees.csv',
    recognised: 'Recognised: Revolut (preset revolut)',
    rows: [
      '2026-03-01 1000.00 EUR',
      '2026-03-04 -4.50 EUR',
      '2026-03-05 -100.00 EUR',
      '2026-03-05 -0.50 EUR',
      '2026-03-08 -200.00 EUR',
      '2026-03-08 -1.00 EUR',
    ],
    balance: '694.00',
    left: 3,
  },
  {
    file: 'n26.csv',
    recognised: 'Recognised: N26 (preset n26)',
    rows: ['2026-03-04 -4.5 EUR', '2026-03-05 2500.0 EUR', '2026-03-06 -82.13 EUR'],
    balance: '2413.37',
  },
  {
    file: 'ing-de.csv',
    recognised: 'Recognised: ING Germany (preset ing-de)',
    rows: ['2026-03-10 -82.13 EUR', '2026-03-13 2500.00 EUR', '2026-03-14 -4.50 EUR'],
    balance: '2413.37',
  },
  {
    file: 'sparkasse.csv',
    recognised: 'Recognised: Sparkasse (preset sparkasse)',
    rows: ['2026-03-09 -1234.56 EUR', '2026-03-10 -82.13 EUR', '2026-03-13 2500.00 EUR'],
    balance: '1183.31',
    left: 1,
  },
  {
    file: 'dkb-new.csv',
    recognised: 'Recognised: DKB (preset dkb)',
    rows: ['2026-03-10 -82.13 EUR', '2026-03-13 2500.00 EUR', '2026-03-14 -4.50 EUR'],
    balance: '2413.37',
    left: 1,
  },
  {
    file: 'dkb-old.csv',
    recognised: 'Recognised: DKB (preset dkb)',
    rows: ['2026-03-10 -82.13 EUR', '2026-03-13 2500.00 EUR', '2026-03-14 -4.50 EUR'],
    balance: '2413.37',
  },
  {
    file: 'commerzbank.csv',
    recognised: 'Recognised: Commerzbank (preset commerzbank)',
    rows: ['2026-03-10 -82.13 EUR', '2026-03-13 2500.00 EUR', '2026-03-14 -4.50 EUR'],
    balance: '2413.37',
  },
  {
    file: 'paypal.csv',
    recognised: 'Recognised: PayPal (preset paypal)',
    rows: [
      '2026-03-01 100.00 USD',
      '2026-03-04 -4.50 USD',
      '2026-03-05 -43.25 USD',
      '2026-03-05 1250.00 USD',
    ],
    balance: '1302.25',
    left: 2,
  },
  {
    file: 'generic-eu.csv',
    recognised: 'a European bank layout (preset generic-eu)',
    rows: ['2026-04-03 -4.50 EUR', '2026-04-04 -1234.56 EUR', '2026-04-30 2500.00 EUR'],
    balance: '1260.94',
  },
  {
    file: 'generic-us.csv',
    recognised: 'a US bank layout (preset generic-us)',
    rows: ['2026-03-12 2082.13 USD', '2026-03-13 -82.13 USD', '2026-03-14 -4.50 USD'],
    balance: '1995.50',
  },
];

describe('expense import of bank files as the banks write them', () => {
  let sandbox: Sandbox;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const csv = async (sql: string): Promise<string[]> => {
    const r = await run(['query', sql, '--format', 'csv']);
    expect(r.code).toBe(0);
    return r.stdout.trimEnd().split('\n').slice(1);
  };
  const booked = (account: string) =>
    csv(
      `SELECT ts::date || ' ' || amount || ' ' || currency FROM ledger_entries WHERE account_id = '${account}' ORDER BY ts, amount`,
    );
  const balance = async (account: string) =>
    (await csv(`SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE account_id = '${account}'`))[0];
  /** The booked rows and the balance of an account in one CLI call. */
  const bookedWithBalance = async (account: string) => {
    const lines = await csv(
      `SELECT ts::date || ' ' || amount || ' ' || currency, (SELECT sum(amount) FROM ledger_entries WHERE account_id = '${account}') FROM ledger_entries WHERE account_id = '${account}' ORDER BY ts, amount`,
    );
    const cells = lines.map((l) => l.split(','));
    return { rows: cells.map(([row]) => row), balance: cells[0]?.[1] ?? '0' };
  };
  const history = async () => JSON.parse((await run(['history', '--json', '--limit', '100'])).stdout).changes;

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-bank-files-', { database: 'postgres' });
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'banks@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Bank files'])).code).toBe(0);
    expect((await run(['use', 'Bank files'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  for (const c of CASES) {
    it(`${c.file}: only --account, the booked rows and the bank's balance; again adds nothing`, async () => {
      const account = c.file.replace(/\.csv$/, '');
      const term = spawnInTerminal(['import', join(BANKS, c.file), '--account', account], sandbox.env);
      await term.waitFor(/\[y\/N\]/, 'stdout');
      term.write('y\r');
      const first = await term.result;
      const out = plain(first.stdout);
      expect(out).toContain(c.recognised);
      expect(out).toContain(`${c.rows.length} inserted`);
      if (c.held)
        expect(out).toContain(
          `(${c.held} of them a card payment whose other side waits on unmatched-transfers`,
        );
      if (c.left) expect(out).toContain(`Leaving out ${c.left} row`);
      expect(first.code).toBe(0);
      const after = await bookedWithBalance(account);
      expect(after.rows).toEqual(c.rows);
      expect(after.balance).toBe(c.balance);

      const again = await run(['import', join(BANKS, c.file), '--account', account, '--yes']);
      expect(again.stderr).toContain(`0 inserted, ${c.rows.length} skipped as already present`);
      expect(again.code).toBe(0);
    });
  }

  it('a re-mapped or overlapping export adds only the rows that are new', async () => {
    const account = 'chase-checking';
    const remapped = await run([
      'import',
      join(BANKS, 'chase-checking.csv'),
      '--account',
      account,
      '--map',
      'Description=note',
      '--map',
      'Type=category',
      '--yes',
    ]);
    expect(remapped.stderr).toContain('0 inserted, 4 skipped as already present');
    expect(remapped.code).toBe(0);
    const later = await run([
      'import',
      join(BANKS, 'chase-checking-later.csv'),
      '--account',
      account,
      '--yes',
    ]);
    expect(later.stderr).toContain('2 inserted, 2 skipped as already present');
    expect(later.code).toBe(0);
    expect(await booked(account)).toHaveLength(6);
    expect(await balance(account)).toBe('1929.50');
  });

  it('currency: the preset gives it, else the workspace reporting currency, said on stderr', async () => {
    const r = await run(['import', join(BANKS, 'generic-us.csv'), '--account', 'cur', '--dry-run']);
    expect(r.stderr).toContain(
      "has no currency column: the rows are in USD, the workspace's reporting currency",
    );
    expect(r.code).toBe(0);
  });

  it('a headerless file is read from its values (or named by --columns); an unknown layout names presets and --map lines', async () => {
    const dir = sandbox.dir.path;
    const headerless = join(dir, 'plain.csv');
    await writeFile(headerless, '2026-03-14,-4.50,Coffee\n2026-03-15,-82.13,Groceries\n');
    const read = await run(['import', headerless, '--account', 'plain', '--dry-run']);
    expect(read.code).toBe(0);
    expect(read.stderr).toContain('has no header row: its columns read from their values');
    expect(read.stderr).toContain("'2026-03-14', 'plain', '-4.50', 'USD', 'spend', NULL, 'Coffee'");
    const ok = await run([
      'import',
      headerless,
      '--account',
      'plain',
      '--columns',
      'date,amount,description',
      '--currency',
      'EUR',
      '--dry-run',
    ]);
    expect(ok.stderr).toContain("'2026-03-14', 'plain', '-4.50', 'EUR', 'spend', NULL, 'Coffee'");
    expect(ok.stderr).toContain('2 would be inserted');
    expect(ok.code).toBe(0);

    // A layout no bank's: read from its names and values (Value the amount, Bal. its running balance).
    const understood = await run(['import', join(BANKS, 'unknown.csv'), '--account', 'u', '--dry-run']);
    expect(understood.stderr).toContain('Value → amount');
    expect(understood.stderr).toContain("'2026-03-14', 'u', '-4.50'");
    expect(understood.code).toBe(0);
    // Two columns of numbers that nothing tells apart: refused, with the --map lines to try.
    const twoNumbers = join(dir, 'two-numbers.csv');
    await writeFile(
      twoNumbers,
      'Ref,When,Payee,X,Y\nA1,2026-03-14,Coffee,-4.50,3.10\nA2,2026-03-13,Groceries,-82.13,7.20\n',
    );
    const unknown = await run(['import', twoNumbers, '--account', 'u', '--dry-run']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('its amount column cannot be told');
    expect(unknown.stderr).toContain('--map "X=amount"');
    const mapped = await run([
      'import',
      join(BANKS, 'unknown.csv'),
      '--account',
      'u',
      '--map',
      'Value=amount',
      '--currency',
      'USD',
      '--dry-run',
    ]);
    expect(mapped.stderr).toContain('2 would be inserted');
    expect(mapped.code).toBe(0);
  });

  it('with --no-preset the options shape the file; each wrong guess names the option', async () => {
    const manual = (file: string, ...args: string[]) =>
      run(['import', join(BANKS, file), '--account', 'manual', '--dry-run', '--no-preset', ...args]);
    const args = ['--map', 'Posting Date=ts', '--map', 'Description=counterparty', '--currency', 'USD'];
    // 03/04/2026 reads two ways: without a terminal that is wrong usage naming the option.
    const noFormat = await manual('chase.csv', ...args);
    expect(noFormat.code).toBe(2);
    expect(noFormat.stderr).toContain('03/04/2026 is MM/DD/YYYY (March 4) or DD/MM/YYYY (April 3)');
    expect(noFormat.stderr).toContain('--date-format MM/DD/YYYY or --date-format DD/MM/YYYY');
    const ok = await manual('chase.csv', ...args, '--date-format', 'MM/DD/YYYY');
    expect(ok.stderr).toContain("'2026-03-04', 'manual', '-4.50', 'USD'");
    expect(ok.stderr).toContain('3 would be inserted');
    expect(ok.code).toBe(0);

    const utf8 = await manual('dkb-latin1.csv', '--encoding', 'utf8');
    expect(utf8.code).toBe(1);
    expect(utf8.stderr).toContain('--encoding latin1');
    const wrongDelimiter = await manual('dkb-latin1.csv', '--skip-lines', '3', '--delimiter', ',');
    expect(wrongDelimiter.code).toBe(2);
    expect(wrongDelimiter.stderr).toContain("--delimiter ';'");
    // Help lists every delimiter the reader takes, the pipe included (`pipe` is read as `|`).
    const help = await run(['import', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('(choices: ",", ";", "|", "tab")');
    const dkb = await manual(
      'dkb-latin1.csv',
      '--skip-lines',
      '3',
      '--map',
      'Buchungsdatum=ts',
      '--map',
      'Betrag (EUR)=amount',
      '--map',
      'Zahlungsempfänger*in=counterparty',
      '--currency',
      'EUR',
    );
    expect(dkb.stderr).toContain('read as Latin-1');
    expect(dkb.stderr).toContain('Dates read as DD.MM.YYYY');
    expect(dkb.stderr).toContain("'2026-03-05', 'manual', '-1234.56', 'EUR', 'spend', NULL, 'Edeka Süd'");
    expect(dkb.code).toBe(0);
  });

  it('one import of many batches is one change, and one revert of a short id removes it', async () => {
    const lines = ['Date,Description,Amount'];
    for (let i = 0; i < 250; i++)
      lines.push(`03/${String((i % 28) + 1).padStart(2, '0')}/2026,Shop ${i},-${i + 1}.00`);
    const big = join(sandbox.dir.path, 'big-export.csv');
    await writeFile(big, `${lines.join('\n')}\n`);
    const imported = await run(['import', big, '--account', 'big', '--currency', 'USD', '--yes']);
    expect(imported.stderr).toContain('250 inserted');
    expect(imported.code).toBe(0);

    const [entry] = await history();
    expect(entry.group).toMatchObject({ label: 'import big-export.csv', rowCount: 250, reverted: 0 });
    expect(entry.group.changes).toBeGreaterThan(2);
    // The summary names the change that stands for the import, the one to revert.
    expect(imported.stderr).toContain(`Committed as change ${entry.shortId}`);
    const table = await run(['history']);
    // The table names a change by its short id (the id's last 8 hex digits).
    expect(table.stdout).toContain(entry.changeId.slice(-8));
    expect(table.stdout).toContain('import big-export.csv');
    expect(table.stdout).toContain('250 rows in');

    const prefix = entry.changeId.slice(0, 14);
    const declined = await run(['revert', prefix]);
    expect(declined.code).toBe(3);
    expect(declined.stderr).toContain('would restore 250 row(s)');
    expect(await balance('big')).not.toBe('0');

    const reverted = await run(['revert', prefix, '--yes']);
    expect(reverted.stderr).toContain('Reverted import big-export.csv');
    expect(reverted.code).toBe(0);
    expect(await balance('big')).toBe('0');
    const [undo, undone] = await history();
    expect(undo.group).toMatchObject({ label: 'revert import big-export.csv', rowCount: 250 });
    expect(undone.group).toMatchObject({ label: 'import big-export.csv' });
    expect(undone.group.reverted).toBe(undone.group.changes);

    const ambiguous = await run(['revert', entry.changeId.slice(0, 4), '--yes']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('is ambiguous');
    const none = await run(['revert', 'ffff0000', '--yes']);
    expect(none.code).toBe(1);
  });
});
