// What the console's suites share: one server per suite (startConsole: a fresh database, a mail outbox or a real
// SMTP server, listening on 127.0.0.1), a headless Chromium per person (Debian's package, driven by playwright-core)
// that records console errors and CSP violations, sign-in with an e-mailed code, the header's navigation, axe-core,
// the 390 px check, a chart's geometry and a SELECT through the page's own session.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  adminQuery,
  type EngineSpec,
  type OutboxMail,
  POSTGRES,
  type RequestOptions,
  type Response,
  type RouteClient,
  removeDir,
  request,
  smtpSink,
  suiteRuns,
  tempDir,
} from '@expense/test-kit';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createServer, type ServerConfigInput } from '../../../index.js';
import { databaseOptions, parseConfig } from '../../../platform/config/config.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const HERE = dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS = join(HERE, '..', '..', '..', '..', 'test-artifacts', 'console');
export const DOCS_IMG = join(HERE, '..', '..', '..', '..', '..', '..', 'docs', 'img');
export const CLI_BIN = join(HERE, '..', '..', '..', '..', '..', 'cli', 'dist', 'bin.js');
export const BANKS = join(HERE, '..', '..', '..', '..', '..', 'cli', 'test', 'fixtures', 'banks');
/** The import package's corpus of bank exports, each in its bank's own encoding. */
export const IMPORT_CORPUS = join(
  HERE,
  '..',
  '..',
  '..',
  '..',
  '..',
  'import',
  'test',
  'fixtures',
  'exports',
);
export const IMPORT_CORE = join(HERE, '..', '..', '..', '..', 'console', 'build', 'import-core.js');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Whether the browser suites run: skipped with the reason without Chromium, failed under CI (test-kit). */
export function browserAvailable(): boolean {
  return suiteRuns(
    'the console browser tests',
    existsSync(CHROMIUM) ? [] : [CHROMIUM],
    'sudo bash .ci/chromium-deps.sh (apt-get install chromium), or set CHROMIUM_PATH',
  );
}

export interface Person {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations seen by this person's pages. */
  problems: string[];
}

/** The people (browsers) of one test file, against the console at `origin()`. */
export class Browsers {
  readonly people: Person[] = [];
  private readonly profiles: string[] = [];

  constructor(private readonly origin: () => string) {}

  /** A temporary directory removed by close(). */
  async tempDir(prefix?: string): Promise<string> {
    const dir = await tempDir(prefix);
    this.profiles.push(dir);
    return dir;
  }

  /** A browser of its own (fresh user-data directory) that records console errors and CSP violations. */
  async newPerson(): Promise<Person> {
    const profile = await this.tempDir('expense-chromium-');
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
        const apiAnswer = message.location().url.startsWith(`${this.origin()}/console/api/`);
        if (apiAnswer && message.text().startsWith('Failed to load resource')) return;
        problems.push(`${message.text()} (${message.location().url})`);
      });
      p.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    };
    context.on('page', watch);
    watch(page);
    const person = { context, page, problems };
    this.people.push(person);
    return person;
  }

  async close(): Promise<void> {
    for (const p of this.people) await p.context.close();
    for (const dir of this.profiles) await removeDir(dir);
  }
}

/**
 * Signs in on the console's sign-in page with the e-mailed code (`codeFor` reads it from wherever the server
 * mailed it), starting at `start` (the console's address, or a link from a mail); ends on Home.
 */
export async function signIn(
  page: Page,
  start: string,
  email: string,
  codeFor: (email: string) => Promise<string>,
): Promise<void> {
  await page.goto(start);
  await expect.poll(() => page.url()).toContain('/console/sign-in?return_to=');
  await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
  await page.getByRole('textbox', { name: '8-digit code' }).fill(await codeFor(email));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
}

/** A mail the server sent. */
export interface SentMail {
  to: string[];
  subject: string;
  /** The outbox's text and HTML parts; over SMTP, the message as sent (quoted-printable soft line breaks joined). */
  body: string;
}

export interface ConsoleOptions {
  /** The database: default POSTGRES (a copy of the run's migrated template), dropped by close(). */
  engine?: EngineSpec;
  /**
   * Where the server's mail goes: `outbox` (default), a directory it writes each mail to as JSON; `smtp`, a real
   * SMTP server on 127.0.0.1 that the fixture runs (the mails as the server sends them over the wire).
   */
  mail?: 'outbox' | 'smtp';
  /** More of the server's configuration (e.g. publicUrl, rate limits); the database and the mail are the fixture's. */
  config?: ServerConfigInput;
}

/** One suite's console: its server, database, mail and browsers. */
export interface ConsoleServer extends RouteClient<Response> {
  app: FastifyInstance;
  /** Where it listens, e.g. http://127.0.0.1:43117 (the console under /console/, the API under /v1). */
  origin: string;
  /** The server's own database (e.g. for createUser and addWorkspace of sql/test/setup.ts). */
  db: Database;
  /** One statement as the database's superuser (row-level security does not apply; PostgreSQL engines). */
  adminQuery<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** A request over the socket, so `call(server, API_ROUTES.<name>, …)` calls the API by its route table. */
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** The mails the server sent so far, oldest first. */
  mails(): Promise<SentMail[]>;
  /** The code of the newest sign-in mail to `email` not used yet (waits for it to arrive). */
  codeFor(email: string): Promise<string>;
  /** This suite's people (browsers), closed by close(). */
  browsers: Browsers;
  newPerson(): Promise<Person>;
  /** Signs a person in with the mailed code from `start` (default the console's address); ends on Home. */
  signIn(person: Person, email: string, start?: string): Promise<void>;
  /** Closes the browsers, the server, its database (dropped) and its mail, also after a failed start. */
  close(): Promise<void>;
}

interface MailSink {
  config: ServerConfigInput;
  mails(): Promise<SentMail[]>;
  close(): Promise<void>;
}

async function outboxSink(): Promise<MailSink> {
  const outbox = await tempDir('expense-console-mail-');
  return {
    config: { mailOutbox: outbox },
    async mails() {
      const files = (await readdir(outbox)).filter((f) => f.endsWith('.json'));
      const mails = await Promise.all(
        files.map(async (f) => JSON.parse(await readFile(join(outbox, f), 'utf8')) as OutboxMail),
      );
      return mails
        .sort((a, b) => a.sentAt.localeCompare(b.sentAt))
        .map((m) => ({ to: [m.to], subject: m.subject, body: `${m.text}\n${m.html}` }));
    },
    close: () => removeDir(outbox),
  };
}

async function smtpMail(): Promise<MailSink> {
  const smtp = await smtpSink();
  return {
    config: { smtpUrl: smtp.url, mailFrom: 'Expense <signin@example.test>' },
    mails: async () => smtp.mails(),
    close: () => smtp.close(),
  };
}

/**
 * A suite's console: a fresh database, the server on it listening on 127.0.0.1 (a free port; the URLs in its mails
 * follow it), its mail (see ConsoleOptions.mail) and the suite's browsers; `close()` ends them all.
 */
export async function startConsole(options: ConsoleOptions = {}): Promise<ConsoleServer> {
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    let failure: unknown;
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  };
  try {
    const target = await (options.engine ?? POSTGRES).open();
    cleanups.push(() => target.drop());
    const mail = options.mail === 'smtp' ? await smtpMail() : await outboxSink();
    cleanups.push(() => mail.close());
    const config = parseConfig({
      databaseUrl: target.url,
      databaseDirectUrl: target.directUrl,
      host: '127.0.0.1',
      port: 0,
      logLevel: process.env.LOGS ? 'error' : 'silent',
      ...mail.config,
      ...options.config,
    });
    const db = await openDatabase(databaseOptions(config));
    cleanups.push(() => db.close());
    const app = await createServer(config, { database: db });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const browsers = new Browsers(() => origin);
    cleanups.push(() => browsers.close());
    await mkdir(ARTIFACTS, { recursive: true });

    const used = new Set<string>();
    const codeFor = async (email: string) => {
      const fresh = async () =>
        (await mail.mails())
          .filter((m) => m.to.includes(email))
          .map((m) => /\b(\d{8})\b/.exec(m.subject)?.[1])
          .filter((code): code is string => code !== undefined && !used.has(code))
          .at(-1);
      await expect.poll(fresh, { message: `a sign-in mail to ${email}`, timeout: 15_000 }).toBeDefined();
      const code = (await fresh()) as string;
      used.add(code);
      return code;
    };
    return {
      app,
      origin,
      db,
      adminQuery: (sql, params = []) => adminQuery(sql, params, target.url),
      request: (method, path, requestOptions) => request(origin, method, path, requestOptions),
      mails: () => mail.mails(),
      codeFor,
      browsers,
      newPerson: () => browsers.newPerson(),
      signIn: (person, email, start = `${origin}/console/`) => signIn(person.page, start, email, codeFor),
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/** Follows the header's navigation link to a page and waits for its heading. */
export async function go(page: Page, route: string, heading: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: heading, exact: true })
    .click();
  await expect.poll(() => page.url()).toContain(`#/${route}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/**
 * Every page fits 390 px: nothing scrolls the page sideways, and every amount of a table (a number cell) lies
 * whole inside the screen, so it is read without scrolling sideways (tables are stacked rows on phones).
 */
export async function fitsNarrow(page: Page): Promise<void> {
  const overflow = (await page.evaluate(
    'document.scrollingElement.scrollWidth - window.innerWidth',
  )) as number;
  const wide = (await page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('pre'))
    .slice(0, 5).map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))`)) as string[];
  expect(overflow, `${page.url()} wider than the screen: ${wide.join(', ')}`).toBeLessThanOrEqual(0);
  const outside = (await page.evaluate(`[...document.querySelectorAll('td.num, td.amount')]
    .filter((td) => td.getClientRects().length > 0)
    .filter((td) => {
      const r = td.getBoundingClientRect();
      return r.left < -0.5 || r.right > window.innerWidth + 0.5;
    })
    .map((td) => td.textContent + ' ' + Math.round(td.getBoundingClientRect().left) + '–' + Math.round(td.getBoundingClientRect().right))`)) as string[];
  expect(outside, `${page.url()}: amounts off-screen`).toEqual([]);
}

/** Words for an agent that a person must not read on a page ("Tell the user…"). */
export const AGENT_WORDING = /tell the user|the agent\b|ask the user|relay (this|it) to/i;

/** The page holds no agent instruction, shown or hidden (its whole text, whitespace collapsed). */
export async function inPeoplesWords(page: Page, what: string): Promise<void> {
  const text = ((await page.locator('body').textContent()) ?? '').replace(/\s+/g, ' ');
  expect(text.match(AGENT_WORDING)?.[0], `${what}: ${text.slice(0, 200)}`).toBeUndefined();
}

let axeSource: string | undefined;
/** axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern). */
export async function axeClean(page: Page, what: string): Promise<void> {
  axeSource ??= await readFile(AXE, 'utf8');
  const violations = (await page.evaluate(`(async () => {
    if (!window.axe) { ${axeSource} }
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '));
  })()`)) as string[];
  expect(violations, what).toEqual([]);
}

/** What a chart drew: labels and bars outside its box, the y-axis tick labels, group labels, series. */
export async function chartGeometry(chart: Locator) {
  return chart.evaluate((svg) => {
    const box = svg.getBoundingClientRect();
    const outside: string[] = [];
    for (const el of svg.querySelectorAll('text, rect')) {
      const r = el.getBoundingClientRect();
      if (
        r.left < box.left - 0.5 ||
        r.right > box.right + 0.5 ||
        r.top < box.top - 0.5 ||
        r.bottom > box.bottom + 0.5
      ) {
        outside.push(`${el.tagName} ${el.textContent}`);
      }
    }
    const ticks = [...svg.querySelectorAll('g.tick text')].map((t) => t.textContent ?? '');
    const groups = [...svg.querySelectorAll('g.group > text')].map((t) => t.textContent ?? '');
    const series = new Set([...svg.querySelectorAll('rect.bar')].map((r) => r.getAttribute('class'))).size;
    return { outside, ticks, groups, series };
  });
}

/** The header names the selected workspace on every page. */
export async function headerWorkspace(page: Page): Promise<string> {
  const chosen = page.getByRole('combobox', { name: 'Workspace' }).locator('option:checked');
  await chosen.waitFor({ state: 'attached' });
  return (await chosen.textContent()) ?? '';
}

/** The rows of one SELECT, read by the page's own session (a 429 of the session's limit is waited out). */
export async function selectInPage(page: Page, sql: string): Promise<Record<string, unknown>[]> {
  const envelope = (await page.evaluate(`(async () => {
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
  })()`)) as { data: { statements: { rows: Record<string, unknown>[] }[] } };
  return envelope.data.statements[0]?.rows ?? [];
}

/** Picks a bank file on the Import page and checks it: the preview's count line. */
export async function checkFile(page: Page, path: string, account: string): Promise<string> {
  await page.getByLabel('Bank file (CSV)').setInputFiles(path);
  await page.getByRole('combobox', { name: 'Account' }).fill(account);
  await page.getByRole('button', { name: 'Check file' }).click();
  const count = page.getByRole('status').filter({ hasText: /new rows? to add of/ });
  await count.waitFor();
  return (await count.textContent()) ?? '';
}
