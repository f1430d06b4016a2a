// The console in a real headless Chromium (Debian's package, driven by playwright-core): sign-in with the code
// from the mail outbox, workspaces, invitations across two browser profiles, removal and key revocation (the
// API answers 401), a guard error with its hint, every report's chart and table, and no console error or
// Content-Security-Policy violation on any page. Screenshots go to test-artifacts/console/.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareImport } from '../../../../../import/src/prepare.js';
import {
  ARTIFACTS,
  axeClean,
  BANKS,
  browserAvailable,
  CLI_BIN,
  type ConsoleServer,
  chartGeometry,
  checkFile as checkBankFile,
  DOCS_IMG,
  fitsNarrow,
  go,
  headerWorkspace,
  IMPORT_CORE,
  inPeoplesWords,
  type Person,
  selectInPage,
  startConsole,
} from './browser-kit.js';

describe.runIf(browserAvailable())('console in Chromium', { timeout: 120_000 }, () => {
  let server: ConsoleServer;
  let origin: string;

  beforeAll(async () => {
    server = await startConsole();
    origin = server.origin;
  }, 120_000);
  afterAll(() => server?.close());

  const newPerson = () => server.newPerson();
  const signIn = (person: Person, email: string) => server.signIn(person, email);

  async function statusOf(key: string): Promise<number> {
    return (await call(server, API_ROUTES.workspaces, { key })).status;
  }

  async function newKey(page: Page, label: string): Promise<string> {
    await go(page, 'keys', 'Keys and connections');
    await page.getByRole('textbox', { name: 'Key label' }).fill(label);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: `New key “${label}”` }).waitFor();
    return page.getByRole('textbox', { name: 'The new key' }).inputValue();
  }

  async function runWrite(page: Page, sql: string): Promise<void> {
    await page.getByRole('textbox', { name: 'SQL' }).fill(sql);
    await page.getByRole('button', { name: 'Dry run write' }).click();
    await page.getByRole('button', { name: 'Confirm write' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: the change is in Activity' }).waitFor();
  }

  let alice: Person;
  let bob: Person;

  it('signs in with the code from the mail and creates a workspace', async () => {
    alice = await newPerson();
    await alice.page.goto(`${origin}/console/`);
    await alice.page.getByRole('textbox', { name: 'E-mail address' }).waitFor();
    await alice.page.screenshot({ path: join(ARTIFACTS, 'sign-in.png') });
    await signIn(alice, 'alice@example.com');
    await go(alice.page, 'workspaces', 'Workspaces');
    await alice.page.getByText('You are in no workspace yet').waitFor();
    await alice.page.getByRole('textbox', { name: 'Workspace name' }).fill('Household');
    await alice.page.getByRole('button', { name: 'Create workspace' }).click();
    await alice.page
      .getByRole('status')
      .filter({ hasText: 'Workspace “Household” created and selected.' })
      .waitFor();
    await alice.page.getByRole('cell', { name: 'Household' }).waitFor();
    await alice.page.getByRole('textbox', { name: 'Reporting currency' }).fill('EUR');
    await alice.page.getByRole('textbox', { name: 'Time zone' }).fill('Europe/Berlin');
    await alice.page.getByRole('button', { name: 'Save settings' }).click();
    await alice.page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await alice.page.reload();
    await expect
      .poll(() => alice.page.getByRole('textbox', { name: 'Time zone' }).inputValue())
      .toBe('Europe/Berlin');
    // Rename (owners), and back: the later tests know the workspace as "Household".
    for (const name of ['Our household', 'Household']) {
      await alice.page.getByRole('textbox', { name: 'New name' }).fill(name);
      await alice.page.getByRole('button', { name: 'Rename workspace' }).click();
      await alice.page
        .getByRole('status')
        .filter({ hasText: `Workspace renamed to “${name}”.` })
        .waitFor();
      await alice.page.getByRole('cell', { name, exact: true }).waitFor();
    }
    // A second workspace is selected when created; the header switches back, and a new tab keeps the choice.
    await alice.page.getByRole('textbox', { name: 'Workspace name' }).fill('Holiday');
    await alice.page.getByRole('button', { name: 'Create workspace' }).click();
    await expect.poll(() => headerWorkspace(alice.page)).toBe('Holiday');
    await alice.page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: 'Household' });
    await expect.poll(() => headerWorkspace(alice.page)).toBe('Household');
    const tab = await alice.context.newPage();
    await tab.goto(`${origin}/console/#/reports`);
    await tab.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    expect(await headerWorkspace(tab)).toBe('Household');
    // Opened directly, the page starts with the workspace's settings (its reporting currency here).
    await tab.getByRole('textbox', { name: 'Currency (empty: EUR)' }).waitFor();
    await tab.close();
  });

  it('creates a key shown once; revoking it makes the API answer 401', async () => {
    const key = await newKey(alice.page, 'laptop agent');
    expect(key).toMatch(/^exp_live_/);
    await alice.page.getByText(`curl -H "Authorization: ApiKey ${key}"`).waitFor();
    // The CLI line, run as a shell would: VAR=value pairs, a space, then the command.
    const line =
      (await alice.page.locator('pre code').filter({ hasText: 'expense whoami' }).textContent()) ?? '';
    const parsed = /^((?:[A-Z_]+=\S+ )+)expense whoami$/.exec(line.trim());
    expect(parsed, line).not.toBeNull();
    const env = Object.fromEntries(
      (parsed?.[1] ?? '')
        .trim()
        .split(' ')
        .map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
    );
    expect(env.EXPENSE_API_KEY).toBe(key);
    const home = await server.browsers.tempDir();
    const whoami = await promisify(execFile)(process.execPath, [CLI_BIN, 'whoami'], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, ...env },
    });
    expect(whoami.stdout).toContain('alice@example.com');
    await alice.page.getByText('"mcpServers"').waitFor();
    // The key copies with one button, and no line on a phone splits it.
    await alice.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await alice.page.getByRole('button', { name: 'Copy the key' }).click();
    await alice.page.getByText('Copied.').waitFor();
    expect(await alice.page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await alice.page.setViewportSize({ width: 390, height: 900 });
    const linesOfKey = (await alice.page.evaluate(`[...document.querySelectorAll('pre code')].map((code) => {
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      let text = null;
      while (!text && walker.nextNode()) if (walker.currentNode.textContent.includes(${JSON.stringify(key)})) text = walker.currentNode;
      const at = text?.textContent.indexOf(${JSON.stringify(key)}) ?? -1;
      if (at < 0) return null;
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + ${key.length});
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    }).filter((n) => n !== null)`)) as number[];
    expect(linesOfKey.length).toBeGreaterThan(1);
    expect(linesOfKey.every((n) => n === 1)).toBe(true);
    await alice.page.setViewportSize({ width: 1200, height: 900 });
    expect(await statusOf(key)).toBe(200);
    await alice.page.screenshot({ path: join(ARTIFACTS, 'keys.png'), fullPage: true });
    await alice.page.getByRole('button', { name: 'Revoke laptop agent' }).click();
    await alice.page.getByRole('status').filter({ hasText: '“laptop agent” revoked' }).waitFor();
    expect(await statusOf(key)).toBe(401);
    await expect.poll(() => alice.page.getByRole('button', { name: 'Revoke laptop agent' }).count()).toBe(0);
  });

  it('invites, the invitee accepts in another browser, removal revokes the member’s keys', async () => {
    await go(alice.page, 'members', 'Members');
    await alice.page.getByRole('textbox', { name: 'E-mail address to invite' }).fill('bob@example.com');
    await alice.page.getByRole('button', { name: 'Send invitation' }).click();
    await alice.page.getByRole('cell', { name: 'invited (pending)' }).waitFor();

    bob = await newPerson();
    await signIn(bob, 'bob@example.com');
    // The invitee's first page says where to go, not "You have no workspace".
    await bob.page
      .getByRole('status')
      .filter({ hasText: 'alice@example.com invited you to “Household”.' })
      .waitFor();
    // In no workspace yet: where to get one, not "choose a workspace in the header" (there is no switcher yet).
    await bob.page
      .getByRole('status')
      .filter({
        hasText: /^You are in no workspace yet\. Accept an invitation on Members, or\s+create a workspace/,
      })
      .waitFor();
    await bob.page.getByRole('link', { name: 'Accept or decline on the Members page' }).click();
    await bob.page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await bob.page.getByRole('button', { name: 'Accept Household' }).click();
    await bob.page.getByRole('status').filter({ hasText: 'Joined “Household”.' }).waitFor();
    expect(await headerWorkspace(bob.page)).toBe('Household');
    // A member sees no owner-only action: no invitation form, no removal of others.
    await bob.page.getByRole('cell', { name: 'alice@example.com', exact: true }).waitFor();
    await bob.page.getByText('Only an owner of this workspace can invite or remove people.').waitFor();
    expect(await bob.page.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);
    expect(await bob.page.getByRole('button', { name: 'Remove alice@example.com' }).count()).toBe(0);
    await bob.page.getByRole('button', { name: 'Leave this workspace' }).waitFor();
    await go(bob.page, 'workspaces', 'Workspaces');
    expect(await bob.page.getByRole('button', { name: 'Rename workspace' }).count()).toBe(0);
    const bobKey = await newKey(bob.page, 'bob agent');
    expect(await statusOf(bobKey)).toBe(200);

    await alice.page.reload();
    await alice.page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await alice.page.getByRole('cell', { name: 'bob@example.com', exact: true }).waitFor();
    await alice.page.getByRole('button', { name: 'Remove bob@example.com' }).click();
    const dialog = alice.page.getByRole('alertdialog');
    await expect(dialog.textContent()).resolves.toContain("revokes all 2 of bob@example.com's keys"); // the console session and the agent key
    await alice.page.screenshot({ path: join(ARTIFACTS, 'members.png'), fullPage: true });
    await dialog.getByRole('button', { name: 'Yes, remove' }).click();
    await alice.page.getByRole('status').filter({ hasText: 'bob@example.com removed' }).waitFor();
    expect(await statusOf(bobKey)).toBe(401);

    // The last owner cannot leave: the button is off, and says why and what to do instead.
    const leave = alice.page.getByRole('button', { name: 'Leave this workspace' });
    await expect.poll(() => leave.isDisabled()).toBe(true);
    expect(await leave.getAttribute('aria-describedby')).toBe('sole-owner');
    expect(await alice.page.locator('#sole-owner').textContent()).toMatch(
      /^You are its only owner: you can leave once someone else is an\s+owner too/,
    );
  });

  it('shows a guard error with its hint and position on the SQL page', async () => {
    await go(alice.page, 'sql', 'SQL');
    const sql = 'SELECT email FROM expense_internal.users';
    await alice.page.getByRole('textbox', { name: 'SQL' }).fill(sql);
    await alice.page.getByRole('button', { name: 'Run query' }).click();
    const alert = alice.page.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    // The hint the API itself gives for this statement (the page's own session, through the proxy).
    // The page's own requests share the session's per-second limit: a 429 is waited out.
    const envelope = (await alice.page.evaluate(`(async () => {
      for (;;) {
        const res = await fetch('/console/api/sql/query', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-workspace-id': localStorage.getItem('expense-console-workspace') ?? '',
          },
          body: JSON.stringify({ sql: ${JSON.stringify(sql)} }),
        });
        if (res.status !== 429) return res.json();
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })()`)) as { error: { hint: string } };
    expect(envelope.error.hint).toBeTruthy();
    // The API's hint, less what only an agent can use (the route that lists the schema).
    const forPeople = envelope.error.hint.replace(
      /\s*\(GET \/schema lists the relations, columns and rules\)/,
      '',
    );
    expect(text).toContain(`Hint: ${forPeople}`);
    expect(text).not.toMatch(/ask the user|\/sql\/execute/i);
    expect(text).toMatch(/At line 1, column \d+/);
    // A read shows its rows and is not announced as a saved change.
    await alice.page.getByRole('textbox', { name: 'SQL' }).fill('SELECT 1 AS one');
    await alice.page.getByRole('button', { name: 'Run query' }).click();
    await alice.page.getByRole('table', { name: 'Result of statement 1' }).waitFor();
    expect(await alice.page.getByText(/Committed|Saved:/).count()).toBe(0);
  });

  it('draws each report as a chart and a table', async () => {
    await runWrite(
      alice.page,
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
 (TIMESTAMPTZ '2026-08-03 12:00:00+00', 'checking', -42.10, 'EUR', 'spend', 'groceries'),
 (TIMESTAMPTZ '2026-08-05 09:30:00+00', 'checking', 2500, 'EUR', 'income', 'salary'),
 (TIMESTAMPTZ '2026-09-04 12:00:00+00', 'checking', -61.90, 'EUR', 'spend', 'groceries'),
 (TIMESTAMPTZ '2026-09-10 18:00:00+00', 'card', -30, 'EUR', 'spend', 'restaurants'),
 (TIMESTAMPTZ '2026-10-05 09:30:00+00', 'checking', 14000, 'EUR', 'income', 'bonus'),
 (TIMESTAMPTZ '2026-10-05 09:30:00+00', 'checking', 2500, 'EUR', 'income', 'salary'),
 (TIMESTAMPTZ '2026-09-12 12:00:00+00', 'card', -20, 'USD', 'spend', 'books')`,
    );
    await runWrite(
      alice.page,
      `INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES
 (DATE '2026-09-01', 'spend', 'groceries', 'EUR', 300), (DATE '2026-09-01', 'spend', 'restaurants', 'EUR', 100)`,
    );
    await go(alice.page, 'reports', 'Reports');
    await alice.page.getByRole('textbox', { name: 'From', exact: true }).fill('2026-08-01');
    await alice.page.getByRole('textbox', { name: 'To', exact: true }).fill('2026-10-31');
    const reports = [
      ['spend_by_category', 'Spend by category', 'groceries'],
      ['budget_vs_actual', 'Budget vs actual', 'restaurants'],
      ['balances', 'Balances', 'card'],
      ['monthly_trend', 'Monthly trend', 'Sep 2026'],
    ] as const;
    for (const [kind, title, cellText] of reports) {
      await alice.page.getByRole('combobox', { name: 'Report' }).selectOption(kind);
      await alice.page.getByRole('button', { name: 'Show report' }).click();
      const region = alice.page.getByRole('region', { name: `${title} report` });
      await region.waitFor();
      const chart = region.getByRole('img', { name: `${title} chart (the table below has the same data)` });
      await chart.waitFor();
      const table = region.getByRole('table', { name: `${title} (data table)` });
      await table.getByRole('cell', { name: cellText }).first().waitFor();
      expect(await table.getByRole('row').count()).toBeGreaterThan(1);
      const drawn = await chartGeometry(chart);
      // Every label (ticks and groups) and every bar lies whole inside the chart: nothing clipped or cut.
      expect(drawn.outside, title).toEqual([]);
      // The y axis in the report's currency (EUR), with cents, in the browser's locale (en-US here).
      expect(drawn.ticks.length).toBeGreaterThan(2);
      for (const tick of drawn.ticks) expect(tick).toMatch(/^-?€\d{1,3}(,\d{3})*\.\d{2}$/);
      expect(drawn.ticks.some((t) => /\d,\d{3}/.test(t))).toBe(
        kind === 'balances' || kind === 'monthly_trend',
      );
      for (const cell of await table.getByRole('cell').allTextContents()) {
        expect(cell).not.toMatch(/T\d\d:\d\d:\d\d|\.\d{3,}/);
      }
      if (kind === 'budget_vs_actual') {
        // Grouped bars per category: planned and actual side by side, one group per category.
        expect(drawn.groups).toEqual(['groceries', 'restaurants']);
        expect(drawn.series).toEqual(2);
        await region.getByRole('cell', { name: '€300.00' }).waitFor();
      }
      if (kind === 'spend_by_category') {
        await table.getByRole('cell', { name: '€104.00' }).waitFor();
        // USD has no exchange rate here: the report says so, and the chart stays in EUR.
        await region.getByText(/1 amount in USD had\s+no exchange rate into EUR for its day/).waitFor();
      }
      if (kind === 'monthly_trend') expect(drawn.groups).toEqual(['Aug 2026', 'Sep 2026', 'Oct 2026']);
      if (kind === 'monthly_trend') {
        await alice.page.screenshot({ path: join(ARTIFACTS, 'reports.png'), fullPage: true });
      }
    }
  });

  it('lists the writes on the Activity page and reverts one after a dry run', async () => {
    await go(alice.page, 'activity', 'Activity');
    await alice.page.getByRole('cell', { name: /^Added 2 budget lines · change [0-9a-f]{8}\b/ }).waitFor();
    // Its rows named by month, category and amount (no ids).
    await alice.page.getByText('added · Sep 2026 · groceries · €300.00', { exact: true }).waitFor();
    await alice.page.getByRole('button', { name: 'Revert…' }).first().click();
    await alice.page.getByRole('table', { name: 'Rows the revert changes' }).waitFor();
    await alice.page.getByText('The revert removes 2 budget lines:').waitFor();
    await alice.page.getByRole('button', { name: 'Confirm revert' }).click();
    await alice.page
      .getByRole('status')
      .filter({ hasText: 'Change reverted: removed 2 budget lines' })
      .waitFor();
    await alice.page.getByText('reverted', { exact: true }).first().waitFor();
  });

  it('lists, filters and recategorises transactions; adds and deletes one; each is a change in Activity', async () => {
    const { page } = alice;
    await go(page, 'transactions', 'Transactions');
    await page.getByRole('button', { name: 'All transactions' }).click();
    const list = page.getByRole('table', { name: /^Transactions 1–\d+ of \d+, newest first$/ });
    await list.getByRole('cell', { name: 'bonus' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('rest');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByRole('table', { name: 'Transactions 1–1 of 1, newest first' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('textbox', { name: 'Amount from' }).fill('2000');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByRole('table', { name: 'Transactions 1–3 of 3, newest first' }).waitFor();
    await page.getByRole('button', { name: 'All transactions' }).click();
    await list.getByRole('cell', { name: 'restaurants' }).waitFor();

    // Three entries recategorised in their rows, from the keyboard.
    const entries = ['2026-08-03 checking -€42.10', '2026-09-04 checking -€61.90', '2026-09-10 card -€30.00'];
    for (const [i, entry] of entries.entries()) {
      await page.getByRole('button', { name: `Edit ${entry}` }).click();
      const category = page.getByRole('combobox', { name: `Category of ${entry}` });
      await category.fill('food');
      await page.keyboard.press('Tab');
      await expect
        .poll(() => page.evaluate('document.activeElement.getAttribute("aria-label")'))
        .toBe(`Note of ${entry}`);
      await page.keyboard.type(`checked ${i + 1}`);
      await page.keyboard.press('Enter'); // saves the row
      // Saved when the row leaves edit mode (an error would be shown instead); the values come with the reload.
      await expect
        .poll(
          async () =>
            (await page.getByRole('alert').allTextContents()).join(' ') ||
            page.getByRole('combobox', { name: /^Category of / }).count(),
        )
        .toBe(0);
      await page
        .getByRole('status')
        .filter({ hasText: /^Entry changed \(change [0-9a-f]{8}\)\.$/ })
        .waitFor();
      await expect.poll(() => list.getByRole('cell', { name: `checked ${i + 1}` }).count()).toBe(1);
    }
    expect(await list.getByRole('cell', { name: 'food', exact: true }).count()).toBe(3);

    for (const [amount, note] of [
      ['45.50', 'market'],
      ['1', 'typo'],
    ] as const) {
      const form = page.getByRole('form', { name: 'Add a transaction' });
      await form.getByRole('combobox', { name: 'Account' }).fill('checking');
      await form.getByRole('textbox', { name: 'Amount (EUR)' }).fill(amount);
      await form.getByRole('combobox', { name: 'Category' }).fill('groceries');
      await form.getByRole('textbox', { name: 'Note' }).fill(note);
      await form.getByRole('button', { name: 'Add transaction' }).click();
      await list.getByRole('cell', { name: note }).waitFor();
    }
    await page.getByRole('button', { name: /^Delete \d{4}-\d{2}-\d{2} checking -€1\.00$/ }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Entry deleted' }).waitFor();
    await expect.poll(() => list.getByRole('cell', { name: 'typo' }).count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'transactions.png'), fullPage: true });

    await go(page, 'activity', 'Activity');
    const edits = page.getByRole('row', { name: /Changed 1 transaction · change/ });
    await expect.poll(() => edits.count()).toBe(3);
    await page.getByRole('cell', { name: /^Deleted 1 transaction · change/ }).waitFor();
    await page.getByText('changed · Sep 10, 2026 · checked 3 · -€30.00', { exact: true }).waitFor();
    // A change's rows as before and after, only the fields it changed.
    await edits
      .first()
      .getByRole('button', { name: /^Details of change/ })
      .click();
    const diff = page.getByRole('table', { name: 'Rows of this change' });
    await diff.waitFor();
    const lines = (await diff.getByRole('row').allTextContents()).slice(1);
    expect(lines).toEqual([
      // The row by its day, note and amount (the browser's locale, en-US here), no id.
      'Sep 10, 2026 · checked 3 · -€30.00 (changed)note—checked 3',
      'categoryrestaurantsfood',
    ]);
  });

  it('sets a budget, copies it to next month and edits it in place', async () => {
    const { page } = alice;
    await go(page, 'budgets', 'Budgets');
    await page.getByText(/^No budget for \w{3} \d{4} yet\.$/).waitFor();
    await page.getByRole('textbox', { name: 'Category' }).fill('groceries');
    await page.getByRole('textbox', { name: 'Planned (EUR)' }).fill('300');
    await page.getByRole('button', { name: 'Add line' }).click();
    await page.getByRole('status').filter({ hasText: 'Budget for groceries added' }).waitFor();
    const thisMonth =
      (await page.getByRole('heading', { level: 2, name: /^Budget for / }).textContent()) ?? '';
    await page.getByRole('button', { name: 'Next month' }).click();
    await page.getByText(/^No budget for \w{3} \d{4} yet\.$/).waitFor();
    await page.getByRole('button', { name: /^Copy \w{3} \d{4}’s budget$/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `1 line copied from ${thisMonth.replace('Budget for ', '')}` })
      .waitFor();
    const planned = page.getByRole('textbox', { name: 'Planned for groceries' });
    expect(Number(await planned.inputValue())).toBe(300);
    await planned.fill('320');
    await page.getByRole('button', { name: 'Save groceries' }).click();
    await page.getByRole('status').filter({ hasText: 'Budget for groceries set to €320.00' }).waitFor();
    // Every line of the month before is in this one now: nothing left to copy, no button.
    expect(await page.getByRole('button', { name: /^Copy \w{3} \d{4}’s budget$/ }).count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'budgets.png'), fullPage: true });
  });

  it('shows this month against budget, balances and the latest entries on Home', async () => {
    const { page } = alice;
    await go(page, 'home', 'Home');
    const budget = page.getByRole('region', { name: 'Spending against budget this month' });
    const chart = budget.getByRole('img', {
      name: 'Spending against budget chart (the table below has the same data)',
    });
    await chart.waitFor();
    const drawn = await chartGeometry(chart);
    expect(drawn.outside).toEqual([]);
    expect(drawn.groups).toEqual(['groceries']);
    const row = budget.getByRole('row', { name: /groceries/ });
    await expect.poll(() => row.textContent()).toBe('groceries€300.00€45.50€254.50');
    await page.getByRole('region', { name: 'Balances' }).getByRole('cell', { name: 'checking' }).waitFor();
    await page
      .getByRole('region', { name: 'Latest entries' })
      .getByRole('cell', { name: 'market' })
      .waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'home.png'), fullPage: true });
  });

  it('counts in words: "The last 1 entry" on Home of a workspace with one entry', async () => {
    const { page } = alice;
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: 'Holiday' });
    await expect.poll(() => headerWorkspace(page)).toBe('Holiday');
    await go(page, 'sql', 'SQL');
    await runWrite(
      page,
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-09-01 00:00:00+00', 'cash', -5, 'EUR', 'spend', 'ice cream')`,
    );
    await go(page, 'home', 'Home');
    await page.getByRole('table', { name: 'The last 1 entry', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: 'Household' });
    await expect.poll(() => headerWorkspace(page)).toBe('Household');
  });

  it('fits every page into 390 and 320 px and passes axe-core, at 1280 px too', async () => {
    const { page } = alice;
    const pages = [
      ['home', 'Home'],
      ['transactions', 'Transactions'],
      ['budgets', 'Budgets'],
      ['import', 'Import'],
      ['reports', 'Reports'],
      ['activity', 'Activity'],
      ['workspaces', 'Workspaces'],
      ['members', 'Members'],
      ['keys', 'Keys and connections'],
      ['sql', 'SQL'],
    ] as const;
    for (const width of [1280, 390, 320]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [route, title] of pages) {
        await page.goto(`${origin}/console/#/${route}`);
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
        // Loaded (the session's per-second limit may make a page wait out a 429 or two), and without an error.
        await expect
          .poll(() => page.getByText('Loading…').count(), { message: `${route} loads`, timeout: 20_000 })
          .toBe(0);
        expect(await page.getByRole('alert').allTextContents(), route).toEqual([]);
        if (route === 'reports') {
          await page.getByRole('textbox', { name: 'From', exact: true }).fill('2026-08-01');
          await page.getByRole('combobox', { name: 'Report' }).selectOption('monthly_trend');
          await page.getByRole('button', { name: 'Show report' }).click();
          await page.getByRole('img', { name: /Monthly trend chart/ }).waitFor();
        }
        if (route === 'activity') {
          // A change's before and after too (amounts in it).
          await page
            .getByRole('button', { name: /^Details of change/ })
            .first()
            .click();
          await page.getByRole('table', { name: 'Rows of this change' }).waitFor();
        }
        if (route === 'sql') {
          await page.getByRole('button', { name: 'Run query' }).click();
          await page.getByRole('table', { name: 'Result of statement 1' }).waitFor();
        }
        if (width < 1280) await fitsNarrow(page);
        await axeClean(page, `${route} at ${width} px`);
        await inPeoplesWords(page, `${route} at ${width} px`);
        if (width === 390 && (route === 'home' || route === 'transactions' || route === 'reports')) {
          await page.screenshot({ path: join(ARTIFACTS, `${route}-390.png`), fullPage: true });
        }
      }
    }
    await page.goto(`${origin}/console/sign-in`);
    await fitsNarrow(page);
    await axeClean(page, 'sign-in at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('connects an OAuth client through the consent page, and its token reads the API', async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Browser agent',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = `${origin}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'browser-state',
      resource: `${origin}/mcp`,
    })}`;
    await alice.page.goto(authorize);
    await alice.page.getByRole('radio', { name: /Read only/ }).check();
    // The client's redirect target is no server here: the browser's request to it is all the test needs.
    const redirected = alice.page.waitForRequest((r) => r.url().startsWith(redirectUri));
    await alice.page.getByRole('button', { name: 'Allow' }).click();
    const landed = new URL((await redirected).url());
    expect(landed.searchParams.get('state')).toBe('browser-state');
    expect(landed.searchParams.get('iss')).toBeTruthy();
    const code = landed.searchParams.get('code');
    expect(code).toBeTruthy();
    const token = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${origin}/mcp`,
      }).toString(),
    });
    expect(token.status).toBe(200);
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const bearer = { authorization: `Bearer ${accessToken}` };
    const read = await call(server, API_ROUTES.workspaces, { headers: bearer });
    expect(read.status).toBe(200);
    // Read only, as chosen on the consent page.
    const write = await call(server, API_ROUTES.createWorkspace, {
      headers: bearer,
      body: { name: 'Not allowed' },
    });
    expect(write.status).toBe(403);
  });

  /** Picks a bank file of the CLI's fixtures on the Import page and checks it: the preview's count line. */
  const checkFile = (page: Page, file: string, account: string) =>
    checkBankFile(page, join(BANKS, file), account);

  it('imports a bank file in the browser with the CLI’s import core: one change in Activity; again adds 0', async () => {
    expect(existsSync(IMPORT_CORE), 'console/build/import-core.js: run pnpm build first').toBe(true);
    const { page } = alice;
    const account = 'chase-checking';
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${origin}/console/#/home`);
    await go(page, 'import', 'Import');
    // A bank file names no account: the page asks for one in its own words, and nothing is sent.
    await page.getByLabel('Bank file (CSV)').setInputFiles(join(BANKS, 'chase-checking.csv'));
    await page.getByRole('button', { name: 'Check file' }).click();
    const noAccount = page.getByRole('alert').filter({ hasText: 'does not say which account' });
    await noAccount.waitFor();
    expect(await noAccount.textContent()).toContain('Type the account in the Account field');
    expect(await checkFile(page, 'chase-checking.csv', account)).toContain(
      '4 new rows to add of 4 in the file',
    );
    await page.getByText('Bank: Chase checking (recognised from the file).').waitFor();
    await page.getByRole('table', { name: 'The 4 rows of the file' }).waitFor();
    await axeClean(page, 'import preview at 1280 px');
    await page.screenshot({ path: join(ARTIFACTS, 'import.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 900 });
    await fitsNarrow(page);
    await axeClean(page, 'import preview at 390 px');
    await page.screenshot({ path: join(ARTIFACTS, 'import-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Import 4 rows' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Imported 4 rows.' });
    await done.waitFor();
    // The change id's short form (its last 8 hex digits, which tell changes apart), the full id as its title.
    const changeId = (await done.locator('code').getAttribute('title')) ?? '';
    expect(changeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await done.locator('code').textContent()).toBe(changeId.slice(-8));

    // The rows are there, with the external_ids `expense import` derives from the same file and account.
    const cli = await prepareImport(
      { fileName: 'chase-checking.csv', bytes: await readFile(join(BANKS, 'chase-checking.csv')), account },
      {
        chooseDateFormat: async () => {
          throw new Error('the preset names the date order');
        },
        workspaceCurrency: async () => 'EUR',
      },
    );
    if (cli.into !== 'ledger_entries') throw new Error('a bank file is ledger entries');
    const stored = await selectInPage(
      page,
      `SELECT external_id, amount FROM ledger_entries WHERE account_id = '${account}' ORDER BY external_id`,
    );
    expect(stored.map((r) => r.external_id)).toEqual(cli.rows.map((r) => r.external_id).sort());

    // One entry of Activity, named after the file, with the change id shown on the Import page.
    await go(page, 'activity', 'Activity');
    const entry = page.getByRole('row').filter({ hasText: 'import chase-checking.csv' });
    await entry.waitFor();
    const said = (await entry.textContent()) ?? '';
    expect(said).toContain('import chase-checking.csv: added 4 transactions (2 steps)');
    expect(said).toContain(`change ${changeId.slice(-8)}`);
    // The group's changes are the import's rows: the newest one (the id shown) and the probe before it.
    const detail = await page.evaluate(`(async () => {
      const res = await fetch('/console/api/changes/${changeId}', {
        headers: { 'x-workspace-id': localStorage.getItem('expense-console-workspace') ?? '' },
      });
      return res.json();
    })()`);
    expect((detail as { data: { members: unknown[] } }).data.members).toHaveLength(2);

    // Reverted from Activity as one thing: every change of the group, newest first, after one dry run.
    await entry.getByRole('button', { name: 'Revert…' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: '(2 changes of “import chase-checking.csv”, newest first)' })
      .waitFor();
    await page.getByRole('table', { name: 'Rows the revert changes' }).getByText('(none)').first().waitFor();
    // Undoing an import removes its rows, and says so.
    await page
      .getByText(/^Dry run of the revert: nothing was changed yet\. The revert removes 4 transactions \(/)
      .waitFor();
    await page.getByRole('button', { name: 'Confirm revert' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Reverted import chase-checking.csv: removed 4 transactions' })
      .waitFor();
    const left = await selectInPage(
      page,
      `SELECT count(*) AS n FROM ledger_entries WHERE account_id = '${account}'`,
    );
    expect(Number(left[0]?.n)).toBe(0);
    // Imported again after the revert: the rows are new again, and all of them are added.
    await go(page, 'import', 'Import');
    expect(await checkFile(page, 'chase-checking.csv', account)).toContain(
      '4 new rows to add of 4 in the file',
    );
    await page.getByRole('button', { name: 'Import 4 rows' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 4 rows.' }).waitFor();

    // The same file again: nothing to add (every external_id is there), and nothing offered to import.
    await go(page, 'import', 'Import');
    expect(await checkFile(page, 'chase-checking.csv', account)).toContain(
      '0 new rows to add of 4 in the file; 4 already there will be skipped',
    );
    await page.getByText('Nothing to add: every row of this file is already in the workspace.').waitFor();
    expect(await page.getByRole('button', { name: /^Import \d/ }).count()).toBe(0);
    // A later, overlapping export adds only its new rows.
    expect(await checkFile(page, 'chase-checking-later.csv', account)).toContain(
      '2 new rows to add of 4 in the file; 2 already there will be skipped',
    );
    await page.getByRole('button', { name: 'Import 2 rows' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Imported 2 rows; 2 already there were skipped.' })
      .waitFor();
    const [count] = await selectInPage(
      page,
      `SELECT count(*) AS n FROM ledger_entries WHERE account_id = '${account}'`,
    );
    expect(Number(count?.n)).toBe(6);
  });

  it('saw no console error and no CSP violation, and publishes the screenshots', async () => {
    for (const person of server.browsers.people) expect(person.problems).toEqual([]);
    await mkdir(DOCS_IMG, { recursive: true });
    if (process.env.UPDATE_DOCS_SCREENSHOTS) {
      const names = ['keys', 'members', 'reports', 'home', 'transactions', 'budgets', 'import', 'home-390'];
      for (const name of names.map((n) => `${n}.png`)) {
        await copyFile(join(ARTIFACTS, name), join(DOCS_IMG, `console-${name}`));
      }
    }
  });
});
