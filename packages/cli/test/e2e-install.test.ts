import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFromOutbox, openSandbox, type Sandbox, spawnCommand, tempDir } from './e2e/harness.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const { version } = JSON.parse(await readFile(resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
  version: string;
};

// Getting the command from a clone: `pnpm expense <args>` from the repository root (building what is stale, like
// `pnpm start`), and a global `expense` installed by npm from packages/cli (dependencies from the registry,
// the private workspace packages bundled).
describe('expense from the clone', () => {
  let sandbox: Sandbox;
  const pnpm = (args: string[], env: NodeJS.ProcessEnv) => {
    const run = spawnCommand('pnpm', ['-C', ROOT, '-s', 'expense', ...args], env);
    run.child.stdin?.end();
    return run;
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-install-');
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('`pnpm expense --version` runs the CLI and passes its exit codes on', async () => {
    const ok = await pnpm(['--version'], sandbox.env).result;
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toBe(version);
    const notSignedIn = await pnpm(['whoami'], sandbox.env).result;
    expect(notSignedIn.code).toBe(4);
    expect(notSignedIn.stderr).toContain('not signed in');
  });

  it('`pnpm expense` signs in and reads relative paths from the directory it was started in', async () => {
    const login = spawnCommand(
      'pnpm',
      ['-C', ROOT, '-s', 'expense', 'login', '--email', 'clone@example.com', '--insecure-storage'],
      sandbox.env,
    );
    login.write(`${await codeFromOutbox(sandbox.server.outbox, 'clone@example.com', new Set())}\n`);
    login.child.stdin?.end();
    const signedIn = await login.result;
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect((await pnpm(['workspaces', 'create', 'Clone'], sandbox.env).result).code).toBe(0);
    expect((await pnpm(['use', 'Clone'], sandbox.env).result).code).toBe(0);
    const cwd = join(sandbox.dir.path, 'elsewhere');
    await import('node:fs/promises').then((fs) => fs.mkdir(cwd));
    await writeFile(join(cwd, 'bank.csv'), 'ts,amount,currency\n2026-11-01,-3.20,EUR\n');
    // pnpm runs the script in the root; the launcher runs the CLI in INIT_CWD, where pnpm was started.
    const run = spawnCommand(
      'sh',
      ['-c', `cd '${cwd}' && pnpm -C '${ROOT}' -s expense import bank.csv --account cash --yes`],
      sandbox.env,
    );
    run.child.stdin?.end();
    const imported = await run.result;
    expect(imported.stderr).toContain('bank.csv');
    expect(imported.code, imported.stderr).toBe(0);
    const count = await pnpm(
      ['query', '--format', 'csv', 'SELECT count(*) AS n FROM ledger_entries'],
      sandbox.env,
    ).result;
    expect(count.stdout.trim().split(/\r?\n/)).toEqual(['n', '1']);
  });

  it('installs globally with npm from packages/cli (a copy, its dependencies from the registry)', async () => {
    const prefix = await tempDir('expense-cli-prefix-');
    try {
      // The caller's environment (npm's settings, its cache, the machine's CA certificates), as a user's
      // install would have it; not the settings pnpm sets for the test run.
      const npm = spawnCommand(
        'npm',
        ['install', '-g', '--install-links', '--prefix', prefix.path, join(ROOT, 'packages/cli')],
        Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|pnpm_|EXPENSE_)/i.test(k))),
        180_000,
      );
      npm.child.stdin?.end();
      const install = await npm.result;
      expect(install.code, install.stderr).toBe(0);
      const bin = join(prefix.path, 'bin/expense');
      const shown = await spawnCommand(bin, ['--version'], {}).result;
      expect(shown.stdout.trim()).toBe(version);
      // The bundle loads as a whole (wire schemas and zod inside, keyring and the MCP SDK from the installed
      // dependencies).
      const whoami = await spawnCommand(bin, ['whoami'], {
        HOME: prefix.path,
        XDG_CONFIG_HOME: join(prefix.path, 'config'),
        EXPENSE_API_URL: sandbox.server.apiUrl,
      }).result;
      expect(whoami.code).toBe(4);
      expect(whoami.stderr).toContain('not signed in');
    } finally {
      await prefix.remove();
    }
  }, 300_000);
});
