import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { hasCommand, suiteRuns } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  codeFromOutbox,
  openSandbox,
  type RunningServer,
  type Sandbox,
  spawnCommand,
} from '../../../test/e2e/harness.js';

const KEYRING = createRequire(import.meta.url).resolve('@napi-rs/keyring');

const INSTALL = 'bash .ci/keyring-deps.sh';

// Outside CI a machine without the Secret Service packages skips this suite with the reason; CI installs them
// (.ci/run) and fails here if they are still missing.
const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter((tool) => !hasCommand(tool));
const skip = !suiteRuns('the keychain suite', missing, INSTALL);

function requireTool(tool: string): void {
  if (!hasCommand(tool))
    throw new Error(`${tool} is missing: install the keychain test dependencies with \`${INSTALL}\``);
}

/** Splits `sh` output at the "@@ <name> <rc>" line printed after each step: a step's output precedes it. */
function sections(out: string): Record<string, { rc: number; text: string }> {
  const result: Record<string, { rc: number; text: string }> = {};
  let text = '';
  for (const line of out.split('\n')) {
    const marker = /^@@ (\S+) (\d+)$/.exec(line);
    if (!marker) {
      text += `${line}\n`;
      continue;
    }
    result[marker[1]!] = { rc: Number(marker[2]), text };
    text = '';
  }
  return result;
}

// The keychain path against a real Secret Service: gnome-keyring-daemon on a private D-Bus session bus.
describe.skipIf(skip)('expense CLI with a real Secret Service (gnome-keyring under dbus-run-session)', () => {
  let sandbox: Sandbox;
  let dir: { path: string; remove(): Promise<void> };
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    requireTool('dbus-run-session');
    requireTool('gnome-keyring-daemon');
    sandbox = await openSandbox('expense-cli-keychain-', { database: 'postgres' });
    ({ dir, server, env } = sandbox);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  const account = () => `default@${new URL(server.apiUrl).origin}`;
  const readEntry = () =>
    `node -e 'const {Entry}=require(${JSON.stringify(KEYRING)}); const v=new Entry("expense-cli", process.argv[1]).getPassword(); console.log(v ? "present " + v.slice(0, 9) : "absent")' ${JSON.stringify(account())}`;
  const step = (name: string, command: string) => `${command}; echo "@@ ${name} $?"`;

  it('stores the key in the Secret Service, reads it back in a later process, and removes it at logout', async () => {
    const cliCmd = (args: string) => `node ${JSON.stringify(CLI_BIN)} ${args} 2>&1`;
    const script = [
      'echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1',
      step('login', cliCmd('login --email kc@example.com')),
      step('whoami', cliCmd('whoami')),
      step('entry', readEntry()),
      step('logout', cliCmd('logout')),
      step('after', readEntry()),
    ].join('\n');
    const run = spawnCommand('dbus-run-session', ['--', 'sh', '-c', script], env, 90_000);
    const code = await codeFromOutbox(server.outbox, 'kc@example.com', new Set(), 45_000);
    run.write(`${code}\n`);
    run.child.stdin?.end();
    const result = await run.result;
    const s = sections(result.stdout);
    expect(s.login?.rc, result.stdout + result.stderr).toBe(0);
    expect(s.login!.text).toContain('The key is stored in the system keyring (Secret Service).');
    expect(s.login!.text).not.toContain('No working system keychain');
    expect(s.whoami?.rc).toBe(0);
    expect(s.whoami!.text).toMatch(
      /Key stored in:\s+the system keyring \(Secret Service\), account default@http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(s.entry!.text.trim()).toBe('present exp_live_');
    expect(s.logout?.rc).toBe(0);
    expect(s.after!.text.trim()).toBe('absent');
    expect(existsSync(join(dir.path, 'config', 'expense', 'credentials.json'))).toBe(false);
  });

  it('falls back to the 0600 file, and says why, when the bus has no usable Secret Service', async () => {
    // A session bus where the keyring daemon can be started but has no unlocked collection: the probe write fails.
    const script = step('login', `node ${JSON.stringify(CLI_BIN)} login --email nokc@example.com 2>&1`);
    const run = spawnCommand('dbus-run-session', ['--', 'sh', '-c', script], env, 90_000);
    const code = await codeFromOutbox(server.outbox, 'nokc@example.com', new Set(), 45_000);
    run.write(`${code}\n`);
    run.child.stdin?.end();
    const result = await run.result;
    const s = sections(result.stdout);
    expect(s.login?.rc, result.stdout + result.stderr).toBe(0);
    expect(s.login!.text).toMatch(
      /No working system keychain: (the keychain cannot be used|no Secret Service)/,
    );
    expect(existsSync(join(dir.path, 'config', 'expense', 'credentials.json'))).toBe(true);
  });
});
