// The console in a real headless Chromium (Debian's package, driven by playwright-core): sign-in with the code
// from the mail outbox, workspaces, invitations across two browser profiles, removal and key revocation (the
// API answers 401), a guard error with its hint, every report's chart and table, and no console error or
// Content-Security-Policy violation on any page. Screenshots go to test-artifacts/console/.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeOf, lastMailTo, migratedPostgres, removeDir, tempDir } from '@expense/test-kit';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const HERE = dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = join(HERE, '..', '..', 'test-artifacts', 'console');
const DOCS_IMG = join(HERE, '..', '..', '..', '..', 'docs', 'img');

function browserAvailable(): boolean {
  if (existsSync(CHROMIUM) || process.env.CI === 'true') return true;
  console.warn(
    `skipped the console browser tests: ${CHROMIUM} is missing; install it with: sudo bash .ci/chromium-deps.sh (apt-get install chromium)`,
  );
  return false;
}

interface Person {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations seen by this person's pages. */
  problems: string[];
}

describe.runIf(browserAvailable())('console in Chromium', { timeout: 120_000 }, () => {
  let drop: () => Promise<void>;
  let outbox: string;
  let app: FastifyInstance;
  let origin: string;
  const profiles: string[] = [];
  const people: Person[] = [];

  beforeAll(async () => {
    const fresh = await migratedPostgres();
    drop = fresh.drop;
    outbox = await tempDir();
    app = await createServer({
      databaseUrl: fresh.url,
      host: '127.0.0.1',
      port: 0,
      mailOutbox: outbox,
      logLevel: 'silent',
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    await mkdir(ARTIFACTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    for (const p of people) await p.context.close();
    await app?.close();
    await drop?.();
    await removeDir(outbox);
    for (const dir of profiles) await removeDir(dir);
  });

  /** A browser of its own (fresh user-data directory) that records console errors and CSP violations. */
  async function newPerson(): Promise<Person> {
    const profile = await tempDir('expense-chromium-');
    profiles.push(profile);
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1200, height: 900 },
    });
    const problems: string[] = [];
    // Runs in every page before its own scripts (injected by the driver, not subject to the page's CSP).
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) => {
        console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI);
      });`,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const watch = (p: Page) => {
      p.on('console', (message) => {
        if (message.type() !== 'error') return;
        // An API refusal (e.g. the guard's 400) is shown on the page as its error; Chromium also logs the
        // status of every such fetch. Those of /console/api/ are expected; any other failed load counts.
        const apiAnswer = message.location().url.startsWith(`${origin}/console/api/`);
        if (apiAnswer && message.text().startsWith('Failed to load resource')) return;
        problems.push(`${message.text()} (${message.location().url})`);
      });
      p.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    };
    context.on('page', watch);
    watch(page);
    const person = { context, page, problems };
    people.push(person);
    return person;
  }

  async function signIn(person: Person, email: string): Promise<void> {
    const { page } = person;
    await page.goto(`${origin}/console/`);
    await expect.poll(() => page.url()).toContain('/console/sign-in?return_to=');
    await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    const code = codeOf(await lastMailTo(outbox, email));
    await page.getByRole('textbox', { name: '8-digit code' }).fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
  }

  async function go(page: Page, route: string, heading: string): Promise<void> {
    await page.getByRole('link', { name: heading }).click();
    await expect.poll(() => page.url()).toContain(`#/${route}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  async function statusOf(key: string): Promise<number> {
    const res = await fetch(`${origin}/v1/workspaces`, { headers: { authorization: `ApiKey ${key}` } });
    return res.status;
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
    await page.getByRole('status').filter({ hasText: 'Committed.' }).waitFor();
  }

  let alice: Person;
  let bob: Person;

  it('signs in with the code from the mail and creates a workspace', async () => {
    alice = await newPerson();
    await alice.page.goto(`${origin}/console/`);
    await alice.page.getByRole('textbox', { name: 'E-mail address' }).waitFor();
    await alice.page.screenshot({ path: join(ARTIFACTS, 'sign-in.png') });
    await signIn(alice, 'alice@example.com');
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
  });

  it('creates a key shown once; revoking it makes the API answer 401', async () => {
    const key = await newKey(alice.page, 'laptop agent');
    expect(key).toMatch(/^exp_live_/);
    await alice.page.getByText(`curl -H "Authorization: ApiKey ${key}"`).waitFor();
    await alice.page.getByText('"mcpServers"').waitFor();
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
    await go(bob.page, 'members', 'Members');
    await bob.page.getByRole('button', { name: 'Accept Household' }).click();
    await bob.page.getByRole('status').filter({ hasText: 'Joined “Household”.' }).waitFor();
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

    // The last owner cannot leave: the refusal is shown with its hint, and nothing changes.
    await alice.page.getByRole('button', { name: 'Leave this workspace' }).click();
    await alice.page.getByRole('alertdialog').getByRole('button', { name: 'Yes, remove' }).click();
    const refusal = alice.page.getByRole('alert');
    await refusal.filter({ hasText: 'last_owner' }).waitFor();
    expect(await refusal.textContent()).toContain('Hint: Add another owner first');
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
    const envelope = (await alice.page.evaluate(`(async () => {
      const res = await fetch('/console/api/sql/query', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-workspace-id': sessionStorage.getItem('expense-console-workspace') ?? '',
        },
        body: JSON.stringify({ sql: ${JSON.stringify(sql)} }),
      });
      return res.json();
    })()`)) as { error: { hint: string } };
    expect(envelope.error.hint).toBeTruthy();
    expect(text).toContain(`Hint: ${envelope.error.hint}`);
    expect(text).toMatch(/At line 1, column \d+/);
  });

  it('draws each report as a chart and a table', async () => {
    await runWrite(
      alice.page,
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES
 (TIMESTAMPTZ '2026-08-03 12:00:00+00', 'checking', -42.10, 'EUR', 'spend', 'groceries'),
 (TIMESTAMPTZ '2026-08-05 09:30:00+00', 'checking', 2500, 'EUR', 'income', 'salary'),
 (TIMESTAMPTZ '2026-09-04 12:00:00+00', 'checking', -61.90, 'EUR', 'spend', 'groceries'),
 (TIMESTAMPTZ '2026-09-10 18:00:00+00', 'card', -30, 'EUR', 'spend', 'restaurants'),
 (TIMESTAMPTZ '2026-10-05 09:30:00+00', 'checking', 2500, 'EUR', 'income', 'salary')`,
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
      ['monthly_trend', 'Monthly trend', '2026-09-01'],
    ] as const;
    for (const [kind, title, cellText] of reports) {
      await alice.page.getByRole('combobox', { name: 'Report' }).selectOption(kind);
      await alice.page.getByRole('button', { name: 'Show report' }).click();
      const region = alice.page.getByRole('region', { name: `${title} report` });
      await region.waitFor();
      const chart = region.getByRole('img', { name: `${title} chart (the table below has the same data)` });
      await chart.locator('canvas').waitFor();
      const table = region.getByRole('table', { name: `${title} (data table)` });
      await table.getByRole('cell', { name: cellText }).first().waitFor();
      expect(await table.getByRole('row').count()).toBeGreaterThan(1);
      if (kind === 'monthly_trend') {
        await alice.page.screenshot({ path: join(ARTIFACTS, 'reports.png'), fullPage: true });
      }
    }
  });

  it('lists the writes on the Activity page and reverts one after a dry run', async () => {
    await go(alice.page, 'activity', 'Activity');
    await alice.page.getByRole('cell', { name: /INSERT budget_lines: 2/ }).waitFor();
    await alice.page.getByRole('button', { name: 'Revert…' }).first().click();
    await alice.page.getByRole('table', { name: 'Rows the revert restores' }).waitFor();
    await alice.page.getByRole('button', { name: 'Confirm revert' }).click();
    await alice.page.getByRole('status').filter({ hasText: 'Change reverted' }).waitFor();
    await alice.page.getByText('reverted', { exact: true }).first().waitFor();
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
    const read = await fetch(`${origin}/v1/workspaces`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(read.status).toBe(200);
    // Read only, as chosen on the consent page.
    const write = await fetch(`${origin}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Not allowed' }),
    });
    expect(write.status).toBe(403);
  });

  it('saw no console error and no CSP violation, and publishes three screenshots', async () => {
    for (const person of people) expect(person.problems).toEqual([]);
    await mkdir(DOCS_IMG, { recursive: true });
    if (process.env.UPDATE_DOCS_SCREENSHOTS) {
      for (const name of ['keys.png', 'members.png', 'reports.png']) {
        await copyFile(join(ARTIFACTS, name), join(DOCS_IMG, `console-${name}`));
      }
    }
  });
});
