import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { bashArgs } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFromOutbox, openSandbox, plain, type Sandbox, spawnCommand, tempDir } from './e2e/harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** The sh blocks of the root README's walkthrough, as commands (continuation lines joined, comments dropped). */
async function walkthrough(): Promise<string[][]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('A 60-second walkthrough'));
  if (!section) throw new Error('README.md has no "A 60-second walkthrough" section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter((line) => line.trim() && !line.trim().startsWith('#')),
  );
}

const sh = (command: string, env: NodeJS.ProcessEnv, cwd: string) => {
  const run = spawnCommand('bash', bashArgs(`cd '${cwd}' && ${command}`), env, 120_000);
  run.child.stdin?.end();
  return run.result;
};

// The root README's walkthrough, run as written against the built server (its URL in place of the default
// port; the code, token and key the server hands out in place of the placeholders).
describe('the README walkthrough', () => {
  let sandbox: Sandbox;
  let scratch: { path: string; remove(): Promise<void> };
  let blocks: string[][];
  let host: string;

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-walkthrough-');
    scratch = await tempDir('expense-walkthrough-cwd-');
    blocks = await walkthrough();
    host = new URL(sandbox.server.apiUrl).host;
  });
  afterAll(async () => {
    await sandbox?.close();
    await scratch?.remove();
  });

  it('has the curl walkthrough and the CLI walkthrough', () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]!.some((c) => c.includes('/sql/query'))).toBe(true);
    expect(blocks[1]!.some((c) => c.startsWith('pnpm expense login'))).toBe(true);
  });

  it('the curl commands sign in, create a workspace, write and read', async () => {
    const env = { HOME: sandbox.dir.path };
    const vars: string[] = [];
    let token = '';
    let key = '';
    const outputs: string[] = [];
    for (const raw of blocks[0]!) {
      let command = raw.replaceAll('127.0.0.1:8787', host);
      if (token) command = command.replace('"otpSessionToken":"..."', `"otpSessionToken":"${token}"`);
      if (command.includes('"code":"12345678"')) {
        const code = await codeFromOutbox(sandbox.server.outbox, 'you@example.com', new Set());
        command = command.replace('"code":"12345678"', `"code":"${code}"`);
      }
      if (/^\w+=\S+$/.test(command.trim())) {
        vars.push(command.startsWith('KEY=') ? `KEY='${key}'` : command);
        continue;
      }
      const result = await sh([...vars, command].join('\n'), env, scratch.path);
      expect(result.code, `${command}\n${result.stderr}`).toBe(0);
      const body = JSON.parse(result.stdout) as { ok: boolean; data: Record<string, unknown> };
      expect(body.ok, `${command}\n${result.stdout}`).toBe(true);
      if (typeof body.data.otpSessionToken === 'string') token = body.data.otpSessionToken;
      if (typeof body.data.apiKey === 'string') key = body.data.apiKey;
      outputs.push(result.stdout);
    }
    expect(key).toMatch(/^exp_live_/);
    const last = JSON.parse(outputs.at(-1)!) as { data: { statements: { rows: unknown[] }[] } };
    expect(last.data.statements[0]!.rows).toEqual([{ category: 'groceries', total: '-12.50' }]);
  });

  it('the CLI commands, from the clone, sign in on a terminal, query, export and import', async () => {
    // No EXPENSE_API_URL: the URL comes from `login --api-url` and stays in the profile.
    const env = { HOME: sandbox.dir.path, XDG_CONFIG_HOME: join(sandbox.dir.path, 'cli-config') };
    await writeFile(
      join(scratch.path, 'bank.csv'),
      'ts,amount,currency,category\n2026-11-21,-3.20,EUR,coffee\n',
    );
    // `pnpm -C <clone>` from a scratch directory: what `pnpm expense` does in the clone, without writing
    // ledger.csv into the repository.
    const inClone = (command: string) =>
      command
        .replaceAll('127.0.0.1:8787', host)
        .replace(/^pnpm (-s )?expense/, `pnpm -C '${ROOT}' $1expense`)
        .replaceAll('&& pnpm expense', `&& pnpm -C '${ROOT}' expense`);
    const inTerminal = (command: string) =>
      spawnCommand(
        'script',
        ['-qefc', `cd '${scratch.path}' && ${inClone(command)}`, '/dev/null'],
        { TERM: 'xterm', ...env },
        120_000,
      );
    for (const raw of blocks[1]!) {
      if (raw.startsWith('pnpm expense login')) {
        const term = inTerminal(raw);
        await term.waitFor(/E-mail address: /, 'stdout');
        term.write('cli@example.com\r');
        await term.waitFor(/8-digit code: /, 'stdout');
        term.write(`${await codeFromOutbox(sandbox.server.outbox, 'cli@example.com', new Set())}\r`);
        const result = await term.result;
        expect(result.code, plain(result.stdout)).toBe(0);
        expect(plain(result.stdout)).toContain('Signed in as cli@example.com');
      } else if (raw.startsWith('pnpm expense import')) {
        const term = inTerminal(raw);
        await term.waitFor(/\[y\/N\] /, 'stdout');
        term.write('y\r');
        const result = await term.result;
        expect(result.code, plain(result.stdout)).toBe(0);
        expect(plain(result.stdout)).toContain('1 inserted');
      } else {
        const result = await sh(inClone(raw), env, scratch.path);
        expect(result.code, `${raw}\n${result.stderr}`).toBe(0);
        if (raw.includes('GROUP BY category')) expect(result.stdout).toMatch(/category\s+total/);
      }
    }
    const exported = join(scratch.path, 'ledger.csv');
    expect(existsSync(exported)).toBe(true);
    expect((await readFile(exported, 'utf8')).split('\n')[0]).toContain('account_id');
  });
});
