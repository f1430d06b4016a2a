import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type RunningServer,
  type Sandbox,
  tempDir,
} from './e2e/harness.js';

// The built `expense` binary against the built server (embedded in-memory database), both as processes.
// No D-Bus session here: the key must land in the 0600 file, and the CLI must say so.
describe('expense CLI end to end (no terminal, file credential store)', () => {
  let sandbox: Sandbox;
  let dir: { path: string; remove(): Promise<void> };
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;
  const seen = new Set<string>();
  const email = 'ada@example.com';
  const run = (args: string[], input?: string, extra: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    cli(args, { ...env, ...extra }, input);

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-');
    ({ dir, server, env } = sandbox);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('is not signed in at first (exit 4), in text and in --json', async () => {
    const text = await run(['whoami']);
    expect(text.code).toBe(4);
    expect(text.stderr).toContain('not signed in');
    const json = await run(['--json', 'whoami']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'not_signed_in' } });
  });

  it('refuses login without a terminal and without --email (exit 2)', async () => {
    const result = await run(['login'], '');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--email is required');
  });

  it('refuses a malformed code from stdin without calling verify', async () => {
    const result = await run(['login', '--email', 'bob@example.com'], 'not-a-code\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('8-digit code');
  });

  it('signs in without a terminal, reading the mailed code from stdin, and stores the key in a 0600 file', async () => {
    const result = await loginWithoutTty(env, server.outbox, email, seen);
    expect(result.stderr).toContain(`Signed in as ${email}`);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/spam or junk/);
    expect(result.stderr).not.toMatch(/request (a )?new code/i);
    expect(result.stderr).toMatch(/No working system keychain: there is no D-Bus session bus/);
    const file = join(dir.path, 'config', 'expense', 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    const [account] = Object.keys(stored.keys);
    expect(account).toBe(`default@${new URL(server.apiUrl).origin}`);
    expect(stored.keys[account!].apiKey).toMatch(/^exp_live_/);
    // The key itself is never printed, and the config file never holds it.
    expect(result.stdout + result.stderr).not.toContain(stored.keys[account!].apiKey);
    const config = await readFile(join(dir.path, 'config', 'expense', 'config.json'), 'utf8');
    expect(config).not.toContain(stored.keys[account!].apiKey);
    expect(JSON.parse(config).profiles.default).toMatchObject({
      apiUrl: server.apiUrl,
      credentialStore: 'file',
    });
  });

  it('whoami shows the user, label, URL and that the key is in a plain file', async () => {
    const result = await run(['whoami']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(email);
    expect(result.stdout).toMatch(/expense-cli on /);
    expect(result.stdout).toContain(server.apiUrl);
    expect(result.stdout).toMatch(/credentials\.json \(a plain file with mode 0600\)/);
    const json = JSON.parse((await run(['--json', 'whoami'])).stdout);
    expect(json.user.email).toBe(email);
    expect(json.cli.credentialStore.kind).toBe('file');
  });

  let workspaceId = '';
  it('creates workspaces, lists them, and selects one by name', async () => {
    const created = await run(['--json', 'workspaces', 'create', 'Household']);
    expect(created.code).toBe(0);
    workspaceId = JSON.parse(created.stdout).workspace.workspaceId;
    expect((await run(['workspaces', 'create', 'Travel'])).stderr).toContain('Created workspace Travel');
    const blank = await run(['workspaces', 'create', '   ']);
    expect(blank.code).toBe(1);
    expect(blank.stderr).toContain('invalid_workspace_name');

    const lower = await run(['use', 'household']);
    expect(lower.code, lower.stderr).toBe(0);
    expect(lower.stderr).toContain(`Selected workspace Household (${workspaceId})`);
    const used = await run(['use', 'Household']);
    expect(used.code).toBe(0);
    expect(used.stderr).toContain(`Selected workspace Household (${workspaceId})`);
    const list = await run(['workspaces']);
    expect(list.code).toBe(0);
    const marked = list.stdout.split('\n').find((l) => l.startsWith('*'));
    expect(marked).toContain(workspaceId);
    expect(marked).toContain('Household');
    const unknown = await run(['use', 'Nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('workspace_not_found');
    expect((await run(['whoami'])).stdout).toContain(`Household (${workspaceId})`);
  });

  it('shows the schema as a table and one relation with its columns', async () => {
    const all = await run(['schema']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/ledger_entries\s+table/);
    const one = await run(['schema', 'ledger_entries']);
    expect(one.stdout).toMatch(/external_id\s+text/);
    expect((await run(['schema', 'nope'])).code).toBe(1);
  });

  it('asks for approval before a write: without a terminal and without --yes, exit 3 and nothing is sent', async () => {
    const result = await run(['exec', "DELETE FROM ledger_entries WHERE note = 'x'"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('nothing was sent');
    expect(result.stderr).toContain("DELETE FROM ledger_entries WHERE note = 'x'");
    const json = await run(['--json', 'exec', 'DELETE FROM ledger_entries']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).error.code).toBe('approval_required');
  });

  it('refuses a bad CSV with every problem and its line number before anything is sent', async () => {
    const file = join(dir.path, 'bad.csv');
    await writeFile(
      file,
      'Date,amount,currency\n2026-01-01,-5,USD\n2026-02-31,-5,USD\n2026-01-02,12 USD,USD\n2026-01-03,1,dollars\n',
    );
    // A dead API URL proves nothing is sent: the only error is the validation one.
    const result = await run(['import', file, '--map', 'Date=ts', '--account', 'cash', '--yes'], undefined, {
      EXPENSE_API_URL: 'http://127.0.0.1:9/v1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('3 problems; nothing was sent');
    expect(result.stderr).toMatch(/line 3, ts: "2026-02-31" is not an ISO date/);
    expect(result.stderr).toMatch(/line 4, amount: "12 USD" is not a number/);
    expect(result.stderr).toMatch(/line 5, currency/);
    expect(result.stderr).not.toContain('network_error');
    const json = await run(['--json', 'import', file, '--account', 'cash', '--map', 'Date=ts']);
    expect(JSON.parse(json.stdout).error.details.problems.map((p: { line: number }) => p.line)).toEqual([
      3, 4, 5,
    ]);
    const unmapped = await run(['import', file]);
    expect(unmapped.code).toBe(2);
    // Date is a common name for ts: only the account is missing.
    expect(unmapped.stderr).toContain('No column for account_id');
    expect(unmapped.stderr).toContain('--account <id>');
  });

  it('uses EXPENSE_API_KEY instead of the stored key, and stores nothing', async () => {
    const other = await tempDir('expense-cli-envkey-');
    try {
      const otherEnv = {
        HOME: other.path,
        XDG_CONFIG_HOME: join(other.path, 'config'),
        EXPENSE_API_URL: server.apiUrl,
      };
      const login = await loginWithoutTty(otherEnv, server.outbox, 'grace@example.com', seen, [
        '--label',
        'ci',
      ]);
      expect(login.code).toBe(0);
      const file = JSON.parse(
        await readFile(join(other.path, 'config', 'expense', 'credentials.json'), 'utf8'),
      );
      const key = Object.values(file.keys as Record<string, { apiKey: string }>)[0]!.apiKey;
      const bare = await tempDir('expense-cli-bare-');
      try {
        const bareEnv = {
          HOME: bare.path,
          XDG_CONFIG_HOME: join(bare.path, 'config'),
          EXPENSE_API_URL: server.apiUrl,
        };
        const who = await cli(['whoami'], { ...bareEnv, EXPENSE_API_KEY: key });
        expect(who.code).toBe(0);
        expect(who.stdout).toContain('grace@example.com');
        expect(who.stdout).toContain('EXPENSE_API_KEY environment variable');
        expect(existsSync(join(bare.path, 'config', 'expense', 'credentials.json'))).toBe(false);
        expect((await cli(['whoami'], bareEnv)).code).toBe(4);
      } finally {
        await bare.remove();
      }
    } finally {
      await other.remove();
    }
  });

  it('treats wrong usage as exit 2', async () => {
    const unknown = await run(['querry']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'querry' (usage_error)");
    expect(unknown.stderr).toContain('hint: Did you mean query? See `expense --help`.');
    const format = await run(['query', '--format', 'xml', 'SELECT 1']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('Allowed choices are table, json, csv.');
    // commander's usage errors follow the error envelope with --json, like every other error
    const json = await run(['--json', 'query', '--format', 'xml', 'SELECT 1']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: 'usage_error',
      hint: 'See `expense query --help`.',
    });
    expect((await run(['workspaces', 'create'])).code).toBe(2);
  });

  it('logs out: revokes the key on the server and removes it here; the old key then gets exit 4', async () => {
    const file = join(dir.path, 'config', 'expense', 'credentials.json');
    const key = Object.values(
      JSON.parse(await readFile(file, 'utf8')).keys as Record<string, { apiKey: string }>,
    )[0]!.apiKey;
    const result = await run(['logout']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/revoked on the server/);
    expect(JSON.parse(await readFile(file, 'utf8')).keys).toEqual({});
    expect((await run(['whoami'])).code).toBe(4);
    const revoked = await run(['whoami'], undefined, { EXPENSE_API_KEY: key });
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toContain('invalid_api_key');
  });
});
