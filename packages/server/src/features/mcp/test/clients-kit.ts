// What the suites of the MCP clients people run share (clients.test.ts: the SDK over HTTP and stdio, mcp-remote;
// clients-inspector.test.ts: the Inspector's CLI, a process per call): every tool through a client's callTool,
// the fixture, and the clients themselves.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { POSTGRES } from '@expense/test-kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { insertEntries, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';
import { errorOf, type Json, textOf } from './helpers.js';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../../../node_modules/.bin');
/**
 * The Inspector's CLI mode itself (build/index.js): `mcp-inspector-cli --cli` (build/cli.js) only parses its
 * options and spawns `node build/index.js` with them, so calling it directly runs the same client with one node
 * process less per call.
 */
const INSPECTOR = resolve(BIN, '../@modelcontextprotocol/inspector-cli/build/index.js');
export const MCP_REMOTE = resolve(BIN, '../mcp-remote/dist/proxy.js');

/** A test of the Inspector CLI starts a process per call (two with stdio): ~20 of them. */
export const PROCESS_PER_CALL_MS = 300_000;

/** Runs the steps two at a time (the key's in-flight limit), each as soon as a place is free. */
async function sideBySide(steps: (() => Promise<unknown>)[]): Promise<void> {
  const queue = [...steps];
  const lane = async () => {
    for (let step = queue.shift(); step; step = queue.shift()) await step();
  };
  await Promise.all([lane(), lane()]);
}

/** One tool call through some client: the result as the client returned it (a throw fails the test). */
export type Caller = (name: string, args: Record<string, unknown>) => Promise<Json>;

export interface Fixture {
  live: Live;
  user: TestUser;
  workspaceId: string;
}

/**
 * Every tool, valid and refused, through `callTool`: guard and database refusals, confirmation refusals, unknown
 * workspaces and changes, bad input; the dry run → commit of execute and revert (each step may be another process).
 */
export function everyTool(
  f: () => Fixture,
  caller: () => Caller,
  count: (account: string) => Promise<number>,
  timeout = 60_000,
): void {
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await caller()(name, args);
    expect(r.isError, `${name}: ${textOf(r).slice(0, 400)}`).toBeFalsy();
    expect(r.structuredContent, name).toBeTypeOf('object');
    return r;
  };
  const refused = async (name: string, args: Record<string, unknown>, code: string) => {
    const e = errorOf(await caller()(name, args));
    expect(e.error.code, name).toBe(code);
    expect(e.error.message.length).toBeGreaterThan(0);
    expect(e.nextAction.length).toBeGreaterThan(0);
    expect(`${e.error.hint ?? ''} ${e.nextAction}`).not.toMatch(/\/sql|GET \/|POST \//);
    return e;
  };

  // The calls of a step are independent, so they go side by side (two at a time: the key's in-flight limit is 2
  // SQL requests): with a process per call (Inspector), the test waits for half the processes, not all.
  it(
    'reads: list_workspaces, get_schema, query, get_guide, report, history; and their refusals',
    async () => {
      await sideBySide([
        () =>
          ok('list_workspaces').then((ws) =>
            expect(ws.structuredContent.workspaces.map((w: Json) => w.workspaceId)).toContain(
              f().workspaceId,
            ),
          ),
        () => ok('get_schema', { relations: ['accounts'] }),
        () => refused('query', { sql: 'SELECT 1 AS one', workspaceId: randomUUID() }, 'workspace_not_found'),
        () =>
          ok('query', { sql: 'SELECT 1 AS one' }).then((r) =>
            expect(r.structuredContent.statements[0].rows).toEqual([{ one: 1 }]),
          ),
        () =>
          refused('query', { sql: 'SELECT now()' }, 'function_not_allowed').then((guard) =>
            expect(guard.nextAction).toMatch(/sql-dialect/),
          ),
        () => refused('query', { sql: insertEntries(1, 'kind') }, 'statement_kind_mismatch'),
        () =>
          refused('query', { sql: 'SELECT 1 / 0 AS x' }, 'sql_execution_failed').then((db) =>
            expect(db.error.details).toMatchObject({ sqlstate: '22012' }),
          ),
        () =>
          ok('get_guide', { topic: 'recipes' }).then((r) =>
            expect(r.structuredContent.markdown).toMatch(/^# /),
          ),
        () =>
          caller()('get_guide', { topic: 'nope' }).then((badTopic) => expect(badTopic.isError).toBe(true)),
        () => ok('report', { kind: 'spend_by_category', from: '2026-01-01', to: '2026-01-31' }),
        () =>
          refused(
            'report',
            { kind: 'spend_by_category', from: '2026-02-01', to: '2026-01-31' },
            'invalid_report',
          ),
        () => ok('history', {}),
      ]);
    },
    timeout,
  );

  it(
    'writes: execute and revert, dry run then commit, and every confirmation refusal',
    async () => {
      const account = `clients-${randomUUID().slice(0, 8)}`;
      const sql = insertEntries(2, account);
      const [, dry] = await Promise.all([
        refused('execute', { sql: 'DELETE FROM ledger_entries WHERE ts < now()' }, 'function_not_allowed'),
        ok('execute', { sql }),
      ]);
      const confirmToken = dry.structuredContent.confirmToken;
      expect(await count(account)).toBe(0);
      // Refusals commit nothing: side by side with each other (the count after the commit below proves it).
      await Promise.all([
        refused('execute', { sql: insertEntries(3, account), confirmToken }, 'confirmation_mismatch'),
        refused('execute', { sql, confirmToken: 'ct1.1.e30.AAAA' }, 'confirmation_invalid'),
      ]);
      expect((await ok('execute', { sql, confirmToken })).structuredContent.committed).toBe(true);
      expect(await count(account)).toBe(2);
      await refused(
        'execute',
        { sql, confirmToken, idempotencyKey: `other-${account}` },
        'confirmation_used',
      );

      const changeId = (await ok('history', {})).structuredContent.changes[0].changeId;
      const [, preview] = await Promise.all([
        refused('revert', { changeId: randomUUID() }, 'not_found'),
        ok('revert', { changeId }),
      ]);
      const revertToken = preview.structuredContent.confirmToken;
      await refused('revert', { changeId, confirmToken }, 'confirmation_mismatch');
      expect((await ok('revert', { changeId, confirmToken: revertToken })).structuredContent.committed).toBe(
        true,
      );
      expect(await count(account)).toBe(0);
      await refused('revert', { changeId }, 'change_conflict');
    },
    timeout,
  );
}

/** The 1.x SDK client over a transport, with tools/list done first (so its output-schema validator is armed). */
export async function sdkClient(
  transport: StreamableHTTPClientTransport | StdioClientTransport,
): Promise<Client> {
  const client = new Client({ name: 'expense-tests-sdk1', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools.every((t) => t.outputSchema?.type === 'object')).toBe(true);
  return client;
}

/** The server (PostgreSQL) and user every client suite of a file talks to, started before its tests. */
export function clientsFixture() {
  let fixture: Fixture;
  let configDir: string;
  const apiUrl = () => `${fixture.live.origin}/v1`;
  const count = async (account: string) =>
    (await fixture.live.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows
      .length;
  const stdioEnv = () => ({
    PATH: process.env.PATH ?? '',
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent/config',
    EXPENSE_API_URL: apiUrl(),
    EXPENSE_API_KEY: fixture.user.apiKey,
  });

  beforeAll(async () => {
    fixture = await startWithWorkspace(POSTGRES);
    configDir = await mkdtemp(join(tmpdir(), 'mcp-remote-'));
  });
  afterAll(async () => {
    await fixture?.live.close();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  return {
    fixture: () => fixture,
    configDir: () => configDir,
    apiUrl,
    count,
    stdioEnv,
  };
}

/** The 1.x SDK client's callTool as a Caller. */
export const sdkCaller =
  (client: () => Client): Caller =>
  (name, args) =>
    client().callTool({ name, arguments: args }) as Promise<Json>;

/**
 * Inspector's CLI mode: one process per call (lists the tools, then calls one), JSON on stdout. Its launcher
 * passes `-e NAME=value` as the environment of the CLI mode, which hands its environment to a stdio server.
 */
export const inspector =
  (configDir: () => string, target: () => { target: string[]; env?: Record<string, string> }): Caller =>
  async (name, args) => {
    const toolArgs = Object.entries(args).map(
      ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    const { stdout } = await run(
      process.execPath,
      [
        INSPECTOR,
        ...target().target,
        '--method',
        'tools/call',
        '--tool-name',
        name,
        ...(toolArgs.length ? ['--tool-arg', ...toolArgs] : []),
      ],
      {
        env: { PATH: process.env.PATH ?? '', HOME: configDir(), ...target().env },
        maxBuffer: 8 << 20,
        // inspector-cli 1.0.3 finds its package.json relative to the working directory (a quirk of the package).
        cwd: dirname(INSPECTOR),
      },
    );
    return JSON.parse(stdout) as Json;
  };
