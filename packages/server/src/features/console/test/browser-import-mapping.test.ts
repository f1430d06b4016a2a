// The console's import when recognition is unsure (issue 37, items 5 and 6): a card export in a layout no preset
// names (`;`-separated, decimal commas, charges written positive) is refused until the person says which way its
// amounts point; the Columns panel shows each column with two of its values and what it holds, a column is mapped,
// the preview follows, and the committed entries read back through the API carry the person's choices. The page
// speaks in its own words (no CLI option) and fits 390 px.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTP_ERRORS } from '@expense/wire';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  axeClean,
  browserAvailable,
  type ConsoleServer,
  fitsNarrow,
  go,
  IMPORT_CORPUS,
  type Person,
  selectInPage,
  startConsole,
} from './browser-kit.js';

/** A card statement's export: charges positive, no payment row, a comment column the reader leaves out. */
const CARD_FILE = [
  'Datum;Händler;Betrag;Kommentar',
  '03.02.2026;Bäckerei Schmidt;12,50;Frühstück',
  '05.02.2026;Tankstelle Nord;48,10;Auto',
  '',
].join('\n');

/** An API route, which no text of the console names. */
const ROUTE = /\b(?:GET|POST|PUT|PATCH|DELETE) \/|\/sql\b|\/v1\//;

/** What the page shows, its form fields' chosen options included. */
const pageText = (page: Page) => page.evaluate(`document.querySelector('main').innerText`) as Promise<string>;

describe.runIf(browserAvailable())(
  'console import: columns and signs from the file',
  { timeout: 120_000 },
  () => {
    let server: ConsoleServer;
    let person: Person;

    beforeAll(async () => {
      server = await startConsole();
    }, 120_000);
    afterAll(() => server?.close());

    it('maps a column and flips the sign of a card file no preset names; the entries follow', async () => {
      person = await server.newPerson();
      const { page } = person;
      await server.signIn(person, 'card@example.com');
      await go(page, 'workspaces', 'Workspaces');
      await page.getByRole('textbox', { name: 'Workspace name' }).fill('Cards');
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await page.getByRole('status').filter({ hasText: 'Workspace “Cards” created and selected.' }).waitFor();

      await go(page, 'import', 'Import');
      await page.getByLabel('Bank file (CSV)').setInputFiles({
        name: 'karte.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(CARD_FILE, 'utf8'),
      });
      await page.getByRole('combobox', { name: 'Account' }).fill('visa');

      // Each column with its header and two of its values, before anything is checked.
      const columns = page.getByRole('group', { name: 'Columns' });
      await columns.waitFor();
      await expect.poll(() => columns.getByLabel('Kommentar').getAttribute('id')).toBe('import-column-3');
      expect(await page.locator('#import-column-3-values').textContent()).toBe('Frühstück · Auto');
      expect(await page.locator('#import-column-2-values').textContent()).toBe('12,50 · 48,10');

      // All amounts positive and nothing says it is a card: the page asks, in its own words, and books nothing.
      await page.getByRole('button', { name: 'Check file' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'cannot be told' });
      await refusal.waitFor();
      expect(await refusal.textContent()).toContain('Choose under “Signs”');
      expect(await refusal.textContent()).not.toContain('--');

      // "Charges are positive": the preview follows, and the columns show what the reader took each for.
      await page.getByLabel('Signs').selectOption('positive');
      const count = page.getByRole('status').filter({ hasText: /new rows? to add of/ });
      await count.waitFor();
      expect(await count.textContent()).toContain('2 new rows to add of 2 in the file');
      await expect.poll(() => columns.getByLabel('Datum').inputValue()).toBe('date');
      expect(await columns.getByLabel('Betrag').inputValue()).toBe('amount');
      expect(await columns.getByLabel('Händler').inputValue()).toBe('payee');
      expect(await columns.getByLabel('Kommentar').inputValue()).toBe('ignore');
      // The sign choice and the date formats are offered on the file's own first row.
      const signs = await page.getByLabel('Signs').locator('option').allTextContents();
      expect(signs).toContain('Charges are positive (a card statement): 12,50 is money out');
      const formats = await page.getByLabel('Dates').locator('option').allTextContents();
      const shownDay = (await page.evaluate(
        `new Date(Date.UTC(2026, 1, 3)).toLocaleDateString(navigator.languages[0] ?? navigator.language, { dateStyle: 'medium', timeZone: 'UTC' })`,
      )) as string;
      expect(formats).toEqual(['Recognise from the file', `DD.MM.YYYY: 03.02.2026 is ${shownDay}`]);

      // Map the comment column to the note: the preview is read again with it.
      await columns.getByLabel('Kommentar').selectOption('note');
      const table = page.getByRole('table', { name: 'The 2 rows of the file' });
      await table.getByRole('cell', { name: 'Frühstück' }).waitFor();
      const firstRow = await table.locator('tbody tr').first().locator('td').allTextContents();
      expect(firstRow[0]).toBe(shownDay);
      expect(firstRow[2]).toMatch(/12[.,]50/);
      expect(firstRow[2]).toMatch(/[-−]/);
      expect(firstRow[3]?.trim()).toBe('Spending');
      expect(await table.locator('thead th').allTextContents()).toEqual([
        'Date',
        'Account',
        'Amount',
        'Kind',
        'Payee',
        'Note',
      ]);
      const text = await pageText(page);
      expect(text).not.toContain('--');
      expect(text).not.toContain('2026-02-03');

      await axeClean(page, 'import with the Columns panel at 1280 px');
      await page.screenshot({ path: join(ARTIFACTS, 'import-mapping.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 900 });
      await fitsNarrow(page);
      await page.screenshot({ path: join(ARTIFACTS, 'import-mapping-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1200, height: 900 });

      await page.getByRole('button', { name: 'Import 2 rows' }).click();
      await page.getByRole('status').filter({ hasText: 'Imported 2 rows.' }).waitFor();
      const stored = await selectInPage(
        page,
        `SELECT ts, amount, kind, counterparty, note FROM ledger_entries WHERE account_id = 'visa' ORDER BY ts`,
      );
      expect(stored).toEqual([
        {
          ts: '2026-02-03T00:00:00.000+00:00',
          amount: '-12.50',
          kind: 'spend',
          counterparty: 'Bäckerei Schmidt',
          note: 'Frühstück',
        },
        {
          ts: '2026-02-05T00:00:00.000+00:00',
          amount: '-48.10',
          kind: 'spend',
          counterparty: 'Tankstelle Nord',
          note: 'Auto',
        },
      ]);
      expect(person.problems).toEqual([]);
    });

    it('names a headerless file’s columns from its first row, and a changed column is read as chosen', async () => {
      const { page } = person;
      await page.reload();
      await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor();
      await page.getByLabel('Bank file (CSV)').setInputFiles({
        name: 'umsatz.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('03.02.2026;Miete Februar;-850,00\n05.02.2026;Gehalt;2.400,00\n', 'utf8'),
      });
      await page.getByRole('combobox', { name: 'Account' }).fill('giro');
      const columns = page.getByRole('group', { name: 'Columns' });
      await columns.getByLabel('Column 3').waitFor();
      await page.getByRole('button', { name: 'Check file' }).click();
      await page.getByRole('status').filter({ hasText: '2 new rows to add of 2' }).waitFor();
      await expect.poll(() => columns.getByLabel('Column 1').inputValue()).toBe('date');
      expect(await columns.getByLabel('Column 2').inputValue()).toBe('payee');
      expect(await columns.getByLabel('Column 3').inputValue()).toBe('amount');
      // Money out and in need two named columns: a headerless file offers neither.
      expect(await columns.getByLabel('Column 2').locator('option').allTextContents()).not.toContain(
        'Money out',
      );

      await columns.getByLabel('Column 2').selectOption('note');
      const table = page.getByRole('table', { name: 'The 2 rows of the file' });
      await table.getByRole('cell', { name: 'Miete Februar' }).waitFor();
      const first = await table.locator('tbody tr').first().locator('td').allTextContents();
      expect(first[4]).toBe('');
      expect(first[5]).toBe('Miete Februar');
      expect(first[3]?.trim()).toBe('Spending');
      expect(await pageText(page)).not.toContain('--');
      expect(person.problems).toEqual([]);
    });

    it("books a card's payment as a transfer with the paying account's entry, as the CLI and the API do", async () => {
      const { page } = person;
      // The checking account that paid the card three days before, already in the workspace (one committed write).
      const written = (await page.evaluate(`(async () => {
        const res = await fetch('/console/api/sql/execute', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-workspace-id': localStorage.getItem('expense-console-workspace') ?? '',
            'idempotency-key': crypto.randomUUID(),
          },
          body: JSON.stringify({ sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, counterparty) VALUES (TIMESTAMPTZ '2026-03-15 00:00:00', 'checking', -500.00, 'USD', 'spend', 'AMEX AUTOPAY')" }),
        });
        return res.json();
      })()`)) as { ok: boolean };
      expect(written.ok).toBe(true);
      await page.reload();
      await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor();
      // Charges positive, the payment negative: the file's own convention says it is a card's.
      await page.getByLabel('Bank file (CSV)').setInputFiles({
        name: 'amex.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(
          'Date,Description,Amount\n03/14/2026,GROCERY OUTLET,82.13\n03/18/2026,PAYMENT RECEIVED - THANK YOU,-500.00\n03/20/2026,BOOKSHOP,19.99\n',
          'utf8',
        ),
      });
      await page.getByRole('combobox', { name: 'Account' }).fill('amex');
      await page.getByRole('button', { name: 'Check file' }).click();
      const paired = page.getByText(/^Line 3 is a card payment: a transfer with checking's entry of /);
      await paired.waitFor();
      expect(await pageText(page)).not.toContain('unmatched-transfers');

      // The file's 3 rows (issue 37): the payment's pairing is said apart, not counted as a row.
      expect(await pageText(page)).toContain('3 new rows to add of 3 in the file');
      await page.getByRole('button', { name: 'Import 3 rows' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Imported 3 rows (1 of them a card payment paired with checking).' })
        .waitFor();
      const legs = await selectInPage(
        page,
        `SELECT account_id, amount, kind, event_id IS NOT NULL AS evented FROM ledger_entries
         WHERE amount IN (500, -500) ORDER BY account_id`,
      );
      // One event of two legs: the card's +500 and the checking entry that paid it, now a transfer; no clearing leg.
      expect(legs).toEqual([
        { account_id: 'amex', amount: '500.00', kind: 'transfer', evented: true },
        { account_id: 'checking', amount: '-500.00', kind: 'transfer', evented: true },
      ]);
      const [events] = await selectInPage(
        page,
        'SELECT count(DISTINCT event_id) AS n FROM ledger_entries WHERE amount IN (500, -500)',
      );
      expect(events).toEqual({ n: '1' });
      expect(person.problems).toEqual([]);
    });

    it("words a refusal and the notes of the import core from their situation: the catalogue's console words, no option, no route", async () => {
      const reader = await server.newPerson();
      const { page } = reader;
      await server.signIn(reader, 'situation@example.com');
      await go(page, 'workspaces', 'Workspaces');
      await page.getByRole('textbox', { name: 'Workspace name' }).fill('Situations');
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Workspace “Situations” created and selected.' })
        .waitFor();

      await go(page, 'import', 'Import');
      await page.getByLabel('Bank file (CSV)').setInputFiles({
        name: 'plain.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('Date,Amount,Payee\n2026-02-03,-12.50,Bakery\n', 'utf8'),
      });
      // No account in the file nor in the form: the import core's import_account situation, in the console's words.
      await page.getByRole('button', { name: 'Check file' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'does not say which account' });
      await refusal.waitFor();
      const refused = (await refusal.textContent()) ?? '';
      expect(refused).toContain(HTTP_ERRORS.invalid_request.variants.import_account.consoleMessage);
      expect(refused).toContain(HTTP_ERRORS.invalid_request.variants.import_account.consoleHint);
      expect(refused).not.toContain('--');
      expect(refused).not.toMatch(ROUTE);

      // With the account, the preview's notes (the reader's decisions, as data) name this form's fields.
      await page.getByRole('combobox', { name: 'Account' }).fill('checking');
      await page.getByRole('button', { name: 'Check file' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /new rows? to add of/ })
        .waitFor();
      const notes = await page.locator('#import-preview ~ p.muted').allTextContents();
      expect(notes.length).toBeGreaterThan(0);
      const text = await pageText(page);
      expect(text).not.toContain('--');
      expect(text).not.toMatch(ROUTE);
      expect(reader.problems).toEqual([]);
    });

    it("reads a Japanese bank's Shift_JIS file in the browser: its encoding found, its columns by their names", async () => {
      const { page } = person;
      await page.reload();
      await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor();
      await page.getByLabel('Bank file (CSV)').setInputFiles({
        name: 'mufg.csv',
        mimeType: 'text/csv',
        buffer: readFileSync(join(IMPORT_CORPUS, 'jp-mufg.csv')),
      });
      await page.getByRole('combobox', { name: 'Account' }).fill('mufg');
      const columns = page.getByRole('group', { name: 'Columns' });
      await columns.getByLabel('支払い金額').waitFor();
      await page.getByRole('button', { name: 'Check file' }).click();
      await page.getByRole('status').filter({ hasText: '4 new rows to add of 4' }).waitFor();
      await expect.poll(() => columns.getByLabel('日付').inputValue()).toBe('date');
      expect(await columns.getByLabel('摘要内容').inputValue()).toBe('payee');
      const notes = (await page.locator('#import-preview ~ p.muted').allTextContents()).join(' ');
      expect(notes).toContain('read as Japanese (Shift_JIS)');
      await page.getByRole('button', { name: 'Import 4 rows' }).click();
      await page.getByRole('status').filter({ hasText: 'Imported 4 rows.' }).waitFor();
      const stored = await selectInPage(
        page,
        `SELECT amount, counterparty, note FROM ledger_entries WHERE account_id = 'mufg' ORDER BY ts`,
      );
      expect(stored).toEqual([
        { amount: '-540', counterparty: 'ｾﾌﾞﾝｲﾚﾌﾞﾝ ｼﾌﾞﾔ', note: 'カード' },
        { amount: '-8200', counterparty: 'ﾄｳｷﾖｳﾃﾞﾝﾘﾖｸ', note: '口座振替' },
        { amount: '300000', counterparty: 'ｷﾕｳﾖ ｶ)ｻﾝﾌﾟﾙ', note: '振込' },
        { amount: '-20000', counterparty: 'ﾐﾂﾋﾞｼUFJ ATM', note: 'ATM' },
      ]);
      expect(person.problems).toEqual([]);
    });
  },
);
