import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// Issue 37 through the built CLI against the built server: a card's payment is a transfer, never income. The card's
// file first books the other side on the clearing account and the paying account's file moves it there; the paying
// account's file first is paired with the card's payment. The dry run says which; March's income never grows by
// the payment, both balances are the banks', and importing either file again adds nothing.

const CLEARING = 'unmatched-transfers';
// Charges positive, the payment negative: the card's convention proves it a card.
const CARD = `Date,Description,Amount
03/14/2026,GROCERY OUTLET,82.13
03/18/2026,PAYMENT RECEIVED - THANK YOU,-500.00
03/20/2026,BOOKSHOP,19.99
`;
const CHECKING = `Date,Description,Amount,Balance
03/13/2026,ACME SALARY,3000.00,4000.00
03/15/2026,AMEX AUTOPAY,-500.00,3500.00
03/16/2026,RENT,-1200.00,2300.00
`;

describe('expense import: a card payment is a transfer', () => {
  let sandbox: Sandbox;
  let card: string;
  let checking: string;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const importFile = async (file: string, account: string, ...more: string[]) => {
    const r = await run(['import', file, '--account', account, '--currency', 'USD', '--yes', ...more]);
    expect(r.code, r.stderr).toBe(0);
    return r.stderr;
  };
  const select = async (sql: string) => {
    const r = await run(['query', sql, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trimEnd().split('\n').slice(1);
  };
  const transfers = () =>
    select(
      "SELECT account_id || ' ' || amount FROM ledger_entries WHERE kind = 'transfer' AND event_id IS NOT NULL ORDER BY account_id",
    );
  const balances = () =>
    select(
      "SELECT account_id || ' ' || sum(amount) FROM ledger_entries GROUP BY account_id ORDER BY account_id",
    );
  const income = () => select("SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE kind = 'income'");
  const workspace = async (name: string) => {
    expect((await run(['workspaces', 'create', name])).code).toBe(0);
    expect((await run(['use', name])).code).toBe(0);
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-bank-transfers-');
    const login = await loginWithoutTty(
      sandbox.env,
      sandbox.server.outbox,
      'transfers@example.com',
      new Set(),
      ['--insecure-storage'],
    );
    expect(login.code).toBe(0);
    card = join(sandbox.dir.path, 'amex.csv');
    checking = join(sandbox.dir.path, 'checking.csv');
    await writeFile(card, CARD);
    await writeFile(checking, CHECKING);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it("the card's file first: held on the clearing account, then moved onto the account that paid", async () => {
    await workspace('Card first');
    const dry = await importFile(card, 'amex', '--dry-run');
    expect(dry).toContain(`line 3: transfer, other side not yet imported (held on ${CLEARING})`);
    // The file's 3 rows, not 4: the payment's other side is told apart, not counted as a row of the file.
    expect(dry).toContain(
      `3 would be inserted (1 of them a card payment whose other side waits on ${CLEARING} until the paying account's file is imported), 0 skipped as already present, 0 failed (of 3 rows)`,
    );
    expect(await importFile(card, 'amex')).toContain(
      `3 inserted (1 of them a card payment whose other side waits on ${CLEARING} until the paying account's file is imported), 0 skipped`,
    );
    expect(await transfers()).toEqual(['amex 500.00', `${CLEARING} -500.00`]);
    expect(await income()).toEqual(['0']);

    const checkingDry = await importFile(checking, 'checking', '--dry-run');
    expect(checkingDry).toContain('line 3: transfer, matched to amex 2026-03-18');
    const done = await importFile(checking, 'checking');
    expect(done).toContain('3 inserted (1 of them the other side of a card payment on amex), 0 skipped');
    expect(await transfers()).toEqual(['amex 500.00', 'checking -500.00']);
    expect(await balances()).toEqual(['amex 397.88', 'checking 1300.00']);
    expect(await income()).toEqual(['3000.00']);

    expect(await importFile(card, 'amex')).toContain(
      '0 inserted, 3 skipped as already present, 0 failed (of 3 rows)',
    );
    expect(await importFile(checking, 'checking')).toContain('0 inserted, 3 skipped');
    expect(await balances()).toEqual(['amex 397.88', 'checking 1300.00']);
  });

  it("the built server reads a file in its import worker thread: POST /v1/imports counts the file's rows", async () => {
    await workspace('Over HTTP');
    const credentials = JSON.parse(
      await readFile(join(sandbox.dir.path, 'config', 'expense', 'credentials.json'), 'utf8'),
    ) as { keys: Record<string, { apiKey: string }> };
    const key = Object.values(credentials.keys)[0]!.apiKey;
    const res = await fetch(`${sandbox.server.apiUrl}/imports?account=amex&currency=USD&dryRun=true`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${key}`, 'content-type': 'text/csv' },
      body: CARD,
    });
    const body = (await res.json()) as { data: { rows: { add: number }; notes: string[] } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data.rows.add).toBe(3);
    expect(body.data.notes).toContain(
      `3 rows to add, 1 of them a card payment whose other side waits on ${CLEARING} until the paying account's file is imported.`,
    );
  });

  it("the paying account's file first: the card's payment is paired with its entry", async () => {
    await workspace('Checking first');
    // The same rows in other bytes: a batch's Idempotency-Key is the file's, and these go to another workspace.
    await writeFile(card, CARD.replaceAll('\n', '\r\n'));
    await writeFile(checking, CHECKING.replaceAll('\n', '\r\n'));
    await importFile(checking, 'checking');
    expect(await income()).toEqual(['3000.00']);
    const dry = await importFile(card, 'amex', '--dry-run');
    expect(dry).toContain('line 3: transfer, matched to checking 2026-03-15');
    expect(await transfers()).toEqual([]);
    expect(await importFile(card, 'amex')).toContain(
      '3 inserted (1 of them a card payment paired with checking), 0 skipped as already present, 0 failed (of 3 rows)',
    );
    expect(await transfers()).toEqual(['amex 500.00', 'checking -500.00']);
    expect(await balances()).toEqual(['amex 397.88', 'checking 1300.00']);
    expect(await income()).toEqual(['3000.00']);
    expect(await importFile(card, 'amex')).toContain('0 inserted, 3 skipped');
    expect(await balances()).toEqual(['amex 397.88', 'checking 1300.00']);
  });
});
