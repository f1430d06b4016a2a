import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  insertEntries,
  type Live,
  startLive,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';
import { CLI_BIN, call, cliBuilt, type Era, errorOf, stdioClient } from './helpers.js';
import { type SuiteContext, setKey, toolSuite } from './suite.js';

// `expense mcp` as users run it: the BUILT CLI spawned by the SDK's stdio client, with EXPENSE_API_KEY.
describe.runIf(cliBuilt('the MCP stdio suite')).each(ENGINES)(
  'MCP over stdio (expense mcp) on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;
    let workspaceId: string;
    const apiUrl = () => `${live.origin}/v1`;

    beforeAll(async () => {
      ({ live, user, workspaceId } = await startWithWorkspace(engine));
    });
    afterAll(async () => live?.close());

    const count = async (account: string) =>
      (await live.db.query('SELECT 1 FROM public.ledger_entries WHERE account_id = $1', [account])).rows
        .length;

    describe.each(['legacy', 'modern'] as Era[])('%s protocol', (era) => {
      let client: Client;
      let stderr: () => string;
      const run = randomUUID().slice(0, 8);
      beforeAll(async () => {
        ({ client, stderr } = await stdioClient(apiUrl(), user.apiKey, [], era));
      });
      afterAll(async () => client?.close());
      const ctx: SuiteContext = {
        live: () => live,
        client: () => client,
        workspaceId: () => workspaceId,
        account: (name) => `${name}-${run}`,
        count,
      };
      beforeAll(() => setKey(ctx, user.apiKey));
      toolSuite(ctx);

      it('writes logs to stderr only (stdout carries the protocol)', () => {
        expect(stderr()).toMatch(/expense MCP server on stdio/);
      });
    });

    it('--read-only hides execute (and import) and refuses it; reads still work', async () => {
      const { client } = await stdioClient(apiUrl(), user.apiKey, ['--read-only']);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).not.toContain('execute');
        expect(names).not.toContain('import');
        expect(names).toContain('query');
        const account = `ro-${randomUUID().slice(0, 8)}`;
        const refused = await client
          .callTool({ name: 'execute', arguments: { sql: insertEntries(1, account) } })
          .then((r) => r as { isError?: boolean; content: { text: string }[] })
          .catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
        expect(refused.isError).toBe(true);
        expect(refused.content[0]!.text).toMatch(/execute/);
        expect(await count(account)).toBe(0);
        const ws = await call(client, 'list_workspaces');
        expect(ws.structuredContent.readOnly).toBe(true);
      } finally {
        await client.close();
      }
    });

    it('--workspace pins one workspace (by name) and refuses others', async () => {
      const other = await addWorkspace(live.db, user.userId, `Other ${randomUUID().slice(0, 6)}`);
      const { client } = await stdioClient(apiUrl(), user.apiKey, ['--workspace', 'Home']);
      try {
        const ws = await call(client, 'list_workspaces');
        expect(ws.structuredContent.pinnedWorkspaceId).toBe(workspaceId);
        expect(ws.structuredContent.workspaces.map((w: { workspaceId: string }) => w.workspaceId)).toEqual([
          workspaceId,
        ]);
        const refused = await call(client, 'query', { sql: 'SELECT 1 AS one', workspaceId: other });
        expect(refused.isError).toBe(true);
        expect(errorOf(refused).error.code).toBe('workspace_pinned');
        const ok = await call(client, 'query', { sql: 'SELECT 1 AS one' });
        expect(ok.structuredContent.workspaceId).toBe(workspaceId);
      } finally {
        await client.close();
      }
    });

    it('a confirmToken from one expense mcp process commits from another, once (the API issues and spends it)', async () => {
      const [a, b] = await Promise.all([
        stdioClient(apiUrl(), user.apiKey),
        stdioClient(apiUrl(), user.apiKey),
      ]);
      try {
        const account = `xproc-${randomUUID().slice(0, 8)}`;
        const sql = insertEntries(1, account);
        const dry = await call(a.client, 'execute', { sql });
        const confirmToken = dry.structuredContent.confirmToken;
        const res = await call(b.client, 'execute', { sql, confirmToken });
        expect(res.isError).toBeFalsy();
        expect(res.structuredContent.committed).toBe(true);
        expect(await count(account)).toBe(1);
        const again = await call(a.client, 'execute', {
          sql,
          confirmToken,
          idempotencyKey: `mine-${account}`,
        });
        expect(errorOf(again).error.code).toBe('confirmation_used');
        expect(await count(account)).toBe(1);
        // revert the same way: dry run in b, commit in a
        const history = await call(b.client, 'history');
        const changeId = history.structuredContent.changes[0].changeId;
        const preview = await call(b.client, 'revert', { changeId });
        const done = await call(a.client, 'revert', {
          changeId,
          confirmToken: preview.structuredContent.confirmToken,
        });
        expect(done.isError).toBeFalsy();
        expect(await count(account)).toBe(0);
      } finally {
        await a.client.close();
        await b.client.close();
      }
    });

    it('a commit whose answer never arrives says the outcome is unknown and how to check before retrying', async () => {
      const doomed = await startLive(engine);
      const u = await createUser(doomed.db);
      await addWorkspace(doomed.db, u.userId);
      const { client } = await stdioClient(`${doomed.origin}/v1`, u.apiKey);
      try {
        const sql = insertEntries(1, 'unknown-outcome');
        const dry = await call(client, 'execute', { sql });
        await doomed.close();
        const res = await call(client, 'execute', { sql, confirmToken: dry.structuredContent.confirmToken });
        expect(res.isError).toBe(true);
        expect(errorOf(res).error.code).toBe('mutation_outcome_unknown');
        expect(errorOf(res).nextAction).toMatch(/query the affected rows/);
        expect(errorOf(res).nextAction).toMatch(/same sql and confirmToken/);
      } finally {
        await client.close();
      }
    });

    it('without a key, `expense mcp` exits 4 and writes nothing to stdout', async () => {
      const { spawnSync } = await import('node:child_process');
      const res = spawnSync(process.execPath, [CLI_BIN, 'mcp'], {
        env: {
          PATH: process.env.PATH,
          HOME: '/nonexistent',
          XDG_CONFIG_HOME: '/nonexistent/c',
          EXPENSE_API_URL: apiUrl(),
        },
        input: '',
        encoding: 'utf8',
      });
      expect(res.status).toBe(4);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/not signed in/i);
    });
  },
);
