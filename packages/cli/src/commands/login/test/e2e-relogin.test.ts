import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cli,
  loginWithoutTty,
  openSandbox,
  plain,
  type Sandbox,
  spawnInTerminal,
} from '../../../../test/e2e/harness.js';

// Signing in again over a working key must not leave the old key valid on the server.
describe('expense login over a live key', () => {
  let sandbox: Sandbox;
  const seen = new Set<string>();
  const email = 'again@example.com';
  const storedKey = async () => {
    const file = join(sandbox.dir.path, 'config', 'expense', 'credentials.json');
    const stored = JSON.parse(await readFile(file, 'utf8')) as { keys: Record<string, { apiKey: string }> };
    return Object.values(stored.keys)[0]!.apiKey;
  };
  const mails = async () => (await readdir(sandbox.server.outbox)).length;

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-relogin-', { database: 'postgres' });
    const first = await loginWithoutTty(sandbox.env, sandbox.server.outbox, email, seen, [
      '--insecure-storage',
    ]);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('without a terminal and without --force it refuses (exit 2) before a code is sent; the key stays', async () => {
    const before = await mails();
    const refused = await cli(['login', '--email', email], sandbox.env, '');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`signed in as ${email}`);
    expect(refused.stderr).toContain('--force');
    expect(await mails()).toBe(before);
    const noInput = await cli(['--no-input', 'login', '--email', email], sandbox.env, '');
    expect(noInput.code).toBe(2);
    expect((await cli(['whoami'], sandbox.env)).code).toBe(0);
  });

  it('on a terminal it asks; "n" keeps the key (exit 3)', async () => {
    const term = spawnInTerminal(['login', '--email', email], sandbox.env);
    await term.waitFor(/revoke that key\? \[y\/N\]/, 'stdout');
    term.write('n\r');
    const result = await term.result;
    expect(plain(result.stdout)).toContain('the current key stays');
    expect(result.code).toBe(3);
    expect((await cli(['whoami'], sandbox.env)).code).toBe(0);
  });

  it('with --force it signs in and revokes the replaced key on the server', async () => {
    const oldKey = await storedKey();
    const again = await loginWithoutTty(sandbox.env, sandbox.server.outbox, email, seen, [
      '--insecure-storage',
      '--force',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/The key it replaced \(".*"\) is revoked/);
    const newKey = await storedKey();
    expect(newKey).not.toBe(oldKey);
    const withOld = await cli(['whoami'], { ...sandbox.env, EXPENSE_API_KEY: oldKey });
    expect(withOld.code).toBe(4);
    expect((await cli(['whoami'], sandbox.env)).code).toBe(0);
    const keys = JSON.parse((await cli(['--json', 'keys'], sandbox.env)).stdout) as { keys: unknown[] };
    expect(keys.keys).toHaveLength(1);
  });
});
