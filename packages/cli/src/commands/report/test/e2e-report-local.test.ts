// Issue 23, item 2, through `expense report`: a Berlin household keeping EUR books. An entry at 2026-11-30T23:30Z
// (00:30 on 1 December in Berlin) is December in every report the CLI prints, amounts come in the workspace's
// reporting currency rounded to cents, and without --month the report covers the workspace's current month (its
// local today, data.clock.today), not the UTC one.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

describe('expense report in a Berlin workspace', () => {
  let sandbox: Sandbox;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const csv = async (args: string[]) => {
    const r = await run(['report', ...args, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-report-local-', { database: 'postgres' });
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'berlin@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code, login.stderr).toBe(0);
    for (const args of [
      ['workspaces', 'create', 'Berlin'],
      ['use', 'Berlin'],
    ]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(0);
    }
    const script = join(sandbox.dir.path, 'berlin.sql');
    await writeFile(
      script,
      `UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin';
INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, event_id) VALUES
  (TIMESTAMPTZ '2026-11-30 22:30:00+00', 'checking', -7, 'EUR', 'spend', 'groceries', NULL),
  (TIMESTAMPTZ '2026-11-30 23:30:00+00', 'checking', -20, 'EUR', 'spend', 'groceries', NULL),
  (TIMESTAMPTZ '2026-12-02 08:00:00+00', 'checking', 2000, 'EUR', 'income', 'salary', NULL),
  (TIMESTAMPTZ '2026-12-03 08:00:00+00', 'checking', -100, 'EUR', 'transfer', NULL, 't1'),
  (TIMESTAMPTZ '2026-12-03 08:00:00+00', 'savings', 100, 'EUR', 'transfer', NULL, 't1');
INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES
  (DATE '2026-12-01', 'spend', 'groceries', 'EUR', 300);
`,
    );
    const loaded = await run(['sql', '--yes', '-f', script]);
    expect(loaded.code, loaded.stderr).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('counts 2026-11-30T23:30Z as December in spending, budget, balances and the trend, in EUR', async () => {
    expect(await csv(['spending', '--month', '2026-12'])).toBe(
      'category,currency,spent,entries\ngroceries,EUR,20.00,1\n',
    );
    expect(await csv(['spending', '--month', '2026-11'])).toBe(
      'category,currency,spent,entries\ngroceries,EUR,7.00,1\n',
    );
    expect(await csv(['budget', '--month', '2026-12'])).toBe(
      'budget_month,direction,category,currency,planned_value,actual\n2026-12-01,spend,groceries,EUR,300.00,20.00\n',
    );
    expect(await csv(['balances', '--month', '2026-11'])).toBe(
      'account_id,currency,balance,change,entries,last_ts,native_currency,native_balance,native_change\nchecking,EUR,-7.00,-7.00,1,2026-11-30T23:30:00.000+01:00,EUR,-7.00,-7.00\n',
    );
    // Transfers are neither income nor spending.
    expect(await csv(['trend', '--from', '2026-11', '--to', '2026-12'])).toBe(
      'month,currency,income,spent,net\n2026-11-01,EUR,0.00,7.00,-7.00\n2026-12-01,EUR,2000.00,20.00,1980.00\n',
    );
    const json = await run(['--json', 'report', 'spending', '--month', '2026-12']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      report: 'spending',
      from: '2026-12-01',
      to: '2026-12-31',
      currency: 'EUR',
      fx: { newestRateDate: null, stale: false, unconverted: { count: 0, currencies: [] } },
    });
  });

  it('exec and revert print the change of what they committed (issue 23, item 4; exec by its short id, issue 41)', async () => {
    const newestChange = async () =>
      JSON.parse((await run(['--json', 'history', '--limit', '1'])).stdout).changes[0] as {
        changeId: string;
        shortId: string;
      };
    const write = await run([
      'exec',
      '--yes',
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2027-01-02 10:00:00', 'cash', -3, 'EUR', 'spend', 'coffee')",
    ]);
    expect(write.code, write.stderr).toBe(0);
    const written = /Committed as change ([0-9a-f]{8,12}) /.exec(write.stderr)?.[1];
    expect(written).toBe((await newestChange()).shortId);
    const revert = await run(['revert', '--yes', written!]);
    expect(revert.code, revert.stderr).toBe(0);
    // The revert's own change, by the short id the history shows for it (issue 41).
    const reverted = /Undid change [0-9a-f]{8}.*expense revert ([0-9a-f]{8,12})\)/.exec(revert.stderr)?.[1];
    expect(reverted, revert.stderr).toBe((await newestChange()).shortId);
    expect(reverted).not.toBe(written);
  });

  it('writes CSV a spreadsheet opens as text: formulas from bank text quoted, amounts kept, --raw as is (issue 35)', async () => {
    const formulas = ['=HYPERLINK("http://evil.test","refund")', "+cmd|' /C calc'!A0", '@SUM(1,2)'];
    const inserted = await run([
      'exec',
      '--yes',
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ${formulas
        .map(
          (f, i) =>
            `(TIMESTAMPTZ '2027-05-0${i + 3} 10:00:00', 'checking', -${10 ** i}.5, 'EUR', 'spend', '${f.replaceAll("'", "''")}')`,
        )
        .join(', ')}`,
    ]);
    expect(inserted.code, inserted.stderr).toBe(0);
    const cells = (stdout: string) => parseCsv(stdout) as string[][];
    const query = async (extra: string[]) => {
      const r = await run([
        'query',
        '--format',
        'csv',
        ...extra,
        "SELECT category, amount FROM ledger_entries WHERE ts >= TIMESTAMPTZ '2027-05-01 00:00:00' AND ts < TIMESTAMPTZ '2027-06-01 00:00:00' ORDER BY ts",
      ]);
      expect(r.code, r.stderr).toBe(0);
      return cells(r.stdout).slice(1);
    };
    const safe = await query([]);
    expect(safe.map(([category]) => category)).toEqual(formulas.map((f) => `'${f}`));
    expect(safe.map(([, amount]) => Number(amount))).toEqual([-1.5, -10.5, -100.5]);
    expect((await query(['--raw'])).map(([category]) => category)).toEqual(formulas);

    const spending = cells(await csv(['spending', '--month', '2027-05']));
    expect(
      spending
        .slice(1)
        .map(([category]) => category)
        .sort(),
    ).toEqual(formulas.map((f) => `'${f}`).sort());
    const raw = await run(['report', 'spending', '--month', '2027-05', '--format', 'csv', '--raw']);
    expect(
      cells(raw.stdout)
        .slice(1)
        .map(([category]) => category)
        .sort(),
    ).toEqual([...formulas].sort());
    // A negative amount is a number, not a formula.
    expect(await csv(['trend', '--from', '2027-05', '--to', '2027-05'])).toBe(
      'month,currency,income,spent,net\n2027-05-01,EUR,0.00,112.50,-112.50\n',
    );
  });

  it('refuses a range the API would refuse before sending it, with the next step (issue 35)', async () => {
    for (const args of [
      ['trend', '--from', '2020-01', '--to', '2026-12'],
      ['balances', '--from', '2026-01', '--to', '9999-12'],
      ['spending', '--month', '0000-01'],
    ]) {
      const r = await run(['report', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/at most 36 months apart/);
    }
  });

  it("without --month reports on the workspace's current month, in its time zone", async () => {
    // A zone 12 hours behind UTC: its month differs from the UTC month for half a day at each month's turn.
    const zone = await run(['exec', '--yes', "UPDATE workspace_settings SET timezone = 'Etc/GMT+12'"]);
    expect(zone.code, zone.stderr).toBe(0);
    const clock = await run(['--json', 'query', 'SELECT 1 AS one']);
    const today = JSON.parse(clock.stdout).clock.today as string;
    const json = await run(['--json', 'report', 'spending']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).from).toBe(`${today.slice(0, 7)}-01`);
  });
});
