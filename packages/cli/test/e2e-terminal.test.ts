import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  codeFromOutbox,
  openSandbox,
  plain,
  type RunningServer,
  type Sandbox,
  spawnInTerminal,
} from './e2e/harness.js';

// The interactive paths, in a real pseudo-terminal (util-linux `script`), driven by writing to it.
describe('expense CLI in a terminal', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-pty-', { database: 'postgres' });
    ({ server, env } = sandbox);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('login asks for the address, then the code (hinting at spam, never at a new code), and retries a wrong code', async () => {
    const term = spawnInTerminal(['login'], env);
    await term.waitFor(/E-mail address: /, 'stdout');
    term.write('pty@example.com\r');
    await term.waitFor(/8-digit code: /, 'stdout');
    const code = await codeFromOutbox(server.outbox, 'pty@example.com', new Set());
    const wrong = code === '00000000' ? '11111111' : '00000000';
    term.write(`${wrong}\r`);
    await term.waitFor(/attempts? left[\s\S]*8-digit code: /, 'stdout');
    term.write(`${code}\r`);
    const result = await term.result;
    const out = plain(result.stdout);
    expect(result.code).toBe(0);
    expect(out).toMatch(/look in your spam or junk folder/);
    expect(out).not.toMatch(/request (a )?new code|send (a )?new code/i);
    expect(out).toMatch(/That code is not right; 4 attempts left\./);
    expect(out).toMatch(/Signed in as pty@example\.com/);
    // Colour on a terminal.
    expect(result.stdout.includes('\u001b[32m✓')).toBe(true);
  });

  it('asks before a write; "n" and a bare Enter both decline with exit 3', async () => {
    for (const answer of ['n\r', '\r']) {
      const term = spawnInTerminal(['exec', "DELETE FROM ledger_entries WHERE note = 'x'"], env);
      await term.waitFor(/Run it\? \[y\/N\] /, 'stdout');
      term.write(answer);
      const result = await term.result;
      expect(result.code).toBe(3);
      expect(plain(result.stdout)).toContain("DELETE FROM ledger_entries WHERE note = 'x'");
      expect(plain(result.stdout)).toContain('Not approved; nothing was changed.');
    }
  });

  it('NO_COLOR turns colour off even on a terminal; --no-input never prompts', async () => {
    const term = spawnInTerminal(['exec', 'DELETE FROM ledger_entries'], { ...env, NO_COLOR: '1' });
    await term.waitFor(/Run it\?/, 'stdout');
    term.write('n\r');
    const result = await term.result;
    expect(result.stdout.includes('\u001b[3')).toBe(false);
    const noInput = await spawnInTerminal(['--no-input', 'exec', 'DELETE FROM ledger_entries'], env).result;
    expect(noInput.code).toBe(3);
    expect(plain(noInput.stdout)).toContain('needs your approval; nothing was sent');
  });
});
