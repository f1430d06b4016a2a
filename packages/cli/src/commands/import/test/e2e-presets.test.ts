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

// Bank presets, date detection, debit/credit columns, budgets and transfers, against the built server.
describe('expense import: presets, dates, debit/credit, budgets, transfers', () => {
  let sandbox: Sandbox;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const dryRun = (file: string, ...args: string[]) =>
    run(['import', join(BANKS, file), '--account', 'checking', '--dry-run', ...args]);
  const rows = async (sql: string) => {
    const r = await run(['query', sql, '--format', 'csv']);
    expect(r.stderr).toBe('');
    return r.stdout.trimEnd().split('\n').slice(1);
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-presets-', { database: 'postgres' });
    const login = await loginWithoutTty(
      sandbox.env,
      sandbox.server.outbox,
      'presets@example.com',
      new Set(),
      ['--insecure-storage'],
    );
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Presets'])).code).toBe(0);
    expect((await run(['use', 'presets'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  const cases: [string, string, string[], string[]][] = [
    [
      'chase',
      'chase.csv',
      [],
      ["'2026-03-04', 'checking', '-4.50', 'USD', 'spend', NULL, 'BLUE BOTTLE COFFEE'"],
    ],
    [
      'bofa',
      'bofa.csv',
      ['line 8 (no amount)'],
      ["'2026-03-06', 'checking', '1234.56', 'USD', 'income', NULL, 'ACME CORP DES:PAYROLL"],
    ],
    [
      'amex',
      'amex.csv',
      [],
      [
        "'2026-03-14', 'checking', '-4.50', 'USD', 'spend', 'Restaurant-Restaurant', 'BLUE BOTTLE COFFEE'",
        "'2026-03-15', 'checking', '-1082.13', 'USD', 'spend'",
      ],
    ],
    [
      'dkb',
      'dkb.csv',
      [],
      ["'2026-03-05', 'checking', '-1234.56', 'EUR', 'spend', NULL, 'Edeka Süd', 'Einkauf, Woche 10'"],
    ],
    [
      'dkb',
      'dkb-latin1.csv',
      ['read as Latin-1'],
      ["'2026-03-04', 'checking', '-4.50', 'EUR', 'spend', NULL, 'Bäckerei Schäfer'"],
    ],
    [
      'revolut',
      'revolut.csv',
      ['line 4 (State is REVERTED)'],
      ["'2026-03-04T08:12:45', 'checking', '-4.50', 'EUR', 'spend', NULL, 'Blue Bottle'"],
    ],
    [
      'monzo',
      'monzo.csv',
      [],
      ["'2026-03-04', 'checking', '-4.50', 'GBP', 'spend', 'Eating out', 'Pret A Manger', NULL, NULL, 'csv:"],
    ],
    [
      'n26',
      'n26.csv',
      [],
      ["'2026-03-05', 'checking', '2500.0', 'EUR', 'income', NULL, 'Arbeitgeber GmbH', 'Gehalt März'"],
    ],
    [
      'generic-eu',
      'generic-eu.csv',
      ['Dates read as DD.MM.YYYY'],
      ["'2026-04-04', 'checking', '-1234.56', 'EUR', 'spend', NULL, 'Edeka Süd'"],
    ],
  ];
  for (const [preset, file, notes, values] of cases) {
    it(`--preset ${preset} imports ${file} as the bank wrote it`, async () => {
      const r = await dryRun(file, '--preset', preset);
      for (const n of notes) expect(r.stderr).toContain(n);
      for (const v of values) expect(r.stderr).toContain(v);
      expect(r.stderr).toContain('3 would be inserted');
      expect(r.code).toBe(0);
    });
  }

  it("a preset on another bank's file is wrong usage that says so", async () => {
    const r = await dryRun('chase.csv', '--preset', 'dkb');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('does not look like a dkb export');
    const unknown = await dryRun('chase.csv', '--preset', 'nobank');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('chase-checking, chase-card, wells-fargo, capital-one, bofa, amex');
  });

  it('detects an unambiguous date order and says so; --invert-sign flips a card statement', async () => {
    const args = [
      '--no-preset',
      '--map',
      'Date=ts',
      '--map',
      'Description=counterparty',
      '--currency',
      'USD',
    ];
    const plainSigns = await dryRun('amex.csv', ...args);
    expect(plainSigns.stderr).toContain('Dates read as MM/DD/YYYY');
    expect(plainSigns.stderr).toContain("'2026-03-14', 'checking', '4.50', 'USD', 'income'");
    const inverted = await dryRun('amex.csv', ...args, '--invert-sign');
    expect(inverted.stderr).toContain("'2026-03-14', 'checking', '-4.50', 'USD', 'spend'");
    expect(inverted.stderr).toContain("'2026-03-20', 'checking', '500.00', 'USD', 'income'");
    expect(inverted.code).toBe(0);
  });

  it('asks the date order on a terminal when 03/04/2026 reads two ways', async () => {
    const term = spawnInTerminal(
      [
        'import',
        join(BANKS, 'chase.csv'),
        '--account',
        'checking',
        '--dry-run',
        '--no-preset',
        '--map',
        'Posting Date=ts',
        '--currency',
        'USD',
      ],
      sandbox.env,
    );
    await term.waitFor(/Which order\? \[1\] MM\/DD\/YYYY {2}\[2\] DD\/MM\/YYYY/, 'stdout');
    term.write('2\r');
    const result = await term.result;
    const out = plain(result.stdout);
    expect(out).toContain("'2026-04-03', 'checking', '-4.50', 'USD'");
    expect(out).toContain('3 would be inserted');
    expect(result.code).toBe(0);
  });

  it('--debit/--credit read money out and in from two columns; without them the hint names them', async () => {
    const noAmount = await dryRun(
      'debit-credit.csv',
      '--no-preset',
      '--map',
      'Transaction Date=ts',
      '--currency',
      'USD',
    );
    expect(noAmount.code).toBe(2);
    expect(noAmount.stderr).toContain('--debit <column> --credit <column>');
    const ok = await dryRun(
      'debit-credit.csv',
      '--no-preset',
      '--map',
      'Transaction Date=ts',
      '--map',
      'Description=counterparty',
      '--currency',
      'USD',
      '--debit',
      'Debit',
      '--credit',
      'Credit',
    );
    expect(ok.stderr).toContain("'2026-03-04', 'checking', '-4.50', 'USD', 'spend'");
    expect(ok.stderr).toContain("'2026-03-05', 'checking', '-1082.13', 'USD', 'spend'");
    expect(ok.stderr).toContain("'2026-03-07', 'checking', '500.00', 'USD', 'income'");
    expect(ok.stderr).toContain('3 would be inserted');
    expect(ok.code).toBe(0);
    const oneSided = await dryRun('debit-credit.csv', '--no-preset', '--debit', 'Debit');
    expect(oneSided.code).toBe(2);
  });

  it('--into budget_lines imports a budget once; a second run adds nothing', async () => {
    const args = [
      'import',
      join(BANKS, 'budget.csv'),
      '--into',
      'budget_lines',
      '--map',
      'Month=budget_month',
      '--map',
      'Planned=planned_value',
      '--yes',
    ];
    const first = await run(args);
    expect(first.stderr).toContain('3 inserted');
    expect(first.code).toBe(0);
    expect(
      await rows(
        'SELECT budget_month, direction, category, planned_value, note FROM budget_lines ORDER BY category',
      ),
    ).toEqual([
      '2026-11-01,spend,dining,1200.00,holidays',
      '2026-11-01,spend,groceries,400.00,',
      '2026-11-01,income,salary,5000,',
    ]);
    const again = await run(args);
    expect(again.stderr).toContain('0 inserted, 3 skipped as already present');
    expect(again.code).toBe(0);
    const wrong = await run([...args.slice(0, 3), '--account', 'x']);
    expect(wrong.code).toBe(2);
  });

  it('keeps the two legs of a transfer in one batch, and skips them together', async () => {
    // Rows 3 and 4 are a transfer: a probe of the first three rows would send one leg alone, which the
    // service refuses (a transfer balances within one request).
    const first = await run(['import', join(BANKS, 'transfers.csv'), '--yes']);
    expect(first.stderr).toContain('5 inserted');
    expect(first.code).toBe(0);
    const dir = sandbox.dir.path;
    const { writeFile } = await import('node:fs/promises');
    const changed = join(dir, 'transfers-again.csv');
    // The same event again, one leg with a new external_id: both legs are skipped, never one.
    await writeFile(
      changed,
      [
        'ts,account_id,amount,currency,kind,event_id,external_id',
        '2026-03-03,checking,-500.00,USD,transfer,move-1,t-move-1-out',
        '2026-03-03,savings,500.00,USD,transfer,move-1,t-move-1-in-renamed',
      ].join('\n'),
    );
    const again = await run(['import', changed, '--yes']);
    expect(again.stderr).toContain('0 inserted, 2 skipped as already present');
    expect(again.code).toBe(0);
    expect(await rows("SELECT count(*) FROM ledger_entries WHERE event_id = 'move-1'")).toEqual(['2']);
    const unbalanced = join(dir, 'unbalanced.csv');
    await writeFile(
      unbalanced,
      [
        'ts,account_id,amount,currency,kind,event_id',
        '2026-03-08,checking,-500.00,USD,transfer,move-2',
        '2026-03-08,savings,450.00,USD,transfer,move-2',
      ].join('\n'),
    );
    const refused = await run(['import', unbalanced, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the transfer legs of event "move-2" (lines 2, 3) do not sum to zero in USD',
    );
  });
});
