// Runs every curl example of docs/api.md, in order, against a live server, filling in the variables the
// document names, and checks that each one answers success.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bashArgs, codeOf, lastMailTo, removeDir, tempDir } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../auth/api-keys.js';
import { type Json, type Live, PGLITE, startLive } from './setup.js';

const run = promisify(execFile);
const DOC = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  '..',
  '..',
  'docs',
  'api.md',
);

/** Each command of each ```bash block (backslash-continued lines joined). */
function curlCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('curl ')),
  );
}

/** The routes the document must show: "METHOD path" as written there; a closing quote means the whole path. */
const ROUTES = [
  'GET /v1/"',
  'GET /v1/openapi.json',
  'GET /v1/healthz',
  'GET /v1/readyz',
  'POST /api/agent/send-code',
  'POST /api/agent/verify-code',
  'GET /v1/me',
  'GET /v1/keys"',
  'POST /v1/keys"',
  'DELETE /v1/keys/$CONNECTION_ID',
  'POST /v1/workspaces"',
  'GET /v1/workspaces"',
  'POST /v1/workspaces/$WORKSPACE_ID/select',
  'GET /v1/workspaces/$WORKSPACE_ID/members"',
  'POST /v1/workspaces/$WORKSPACE_ID/members"',
  'DELETE /v1/workspaces/$WORKSPACE_ID/members/$MEMBER_USER_ID',
  'GET /v1/invitations"',
  'POST /v1/invitations/$WORKSPACE_ID/accept',
  'DELETE /v1/invitations/$WORKSPACE_ID',
  'GET /v1/schema',
  'POST /v1/sql/query',
  'POST /v1/sql/execute',
  'POST /v1/sql"',
  'GET /v1/changes?',
  'GET /v1/changes/$CHANGE_ID',
  'POST /v1/changes/$CHANGE_ID/revert',
];

function routeOf(command: string): string {
  const method = /-X (\w+)/.exec(command)?.[1] ?? 'GET';
  const url = /"\$EXPENSE_URL([^"]*)"/.exec(command)?.[1] ?? '';
  return `${method} ${url}"`;
}

describe('docs/api.md', () => {
  let live: Live;
  let outbox: string;

  beforeAll(async () => {
    outbox = await tempDir('expense-docs-');
    live = await startLive(PGLITE, { mailOutbox: outbox });
  });
  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  it('shows every route, and every curl example succeeds against a live server', async () => {
    const commands = curlCommands(await readFile(DOC, 'utf8'));
    const shown = commands.map(routeOf);
    for (const route of ROUTES)
      expect(
        shown.some((s) => s.startsWith(route)),
        route,
      ).toBe(true);

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      EXPENSE_URL: live.origin,
      EMAIL: 'docs-reader@example.test',
      MEMBER_EMAIL: 'docs-member@example.test',
    };
    for (const command of commands) {
      const { stdout } = await run('bash', bashArgs(command), { env }).catch((error: { stdout?: string }) => {
        throw new Error(`failed: ${command}\n${error.stdout ?? String(error)}`);
      });
      if (stdout.trim() === '') continue; // 204
      if (command.includes('/v1/guide')) {
        expect(stdout).toMatch(/^# /); // Markdown
        continue;
      }
      const body: Json = JSON.parse(stdout);
      if ('openapi' in body) {
        expect(body.info.version).toBe('v1');
        continue;
      }
      expect({ command, ok: body.ok }).toEqual({ command, ok: true });
      const data = body.data;
      if (data.otpSessionToken) {
        env.OTP_SESSION_TOKEN = data.otpSessionToken;
        env.CODE = codeOf(await lastMailTo(outbox, env.EMAIL!));
      }
      if (data.apiKey && data.user) {
        env.EXPENSE_API_KEY = data.apiKey;
        const other = await createApiKey(live.db, data.user.userId, 'old laptop');
        env.CONNECTION_ID = other.connectionId;
      }
      if (data.workspace?.workspaceId) env.WORKSPACE_ID = data.workspace.workspaceId;
      if (data.confirmToken) env.TOKEN = data.confirmToken;
      if (data.member?.userId && !env.INVITEE_API_KEY) {
        env.MEMBER_USER_ID = data.member.userId;
        // The invitee's own key, as if they had signed in: invitations are answered by the invitee.
        env.INVITEE_API_KEY = (await createApiKey(live.db, data.member.userId, 'invitee laptop')).apiKey;
      }
      if (data.changes?.[0]?.changeId && !env.CHANGE_ID) env.CHANGE_ID = data.changes[0].changeId;
      if (command.includes('/v1/sql')) expect(data.statements.length).toBeGreaterThan(0);
    }
    expect(env.EXPENSE_API_KEY).toBeDefined();
  }, 180_000); // ~40 curl processes one after another: a loaded machine took more than the default minute
});
