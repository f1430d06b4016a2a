// Issue 39: every stdio configuration docs/mcp.md gives (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf,
// the Inspector), taken from the page's text and started as hosts start it: the MCP SDK's own stdio client (the
// 1.x one inside the desktop and IDE hosts) with the SDK's default environment (getDefaultEnvironment: HOME,
// LOGNAME, PATH, SHELL, TERM, USER; HOME and PATH a user's), the built CLI as `expense` on PATH, against a real
// server. The key in the 0600 file; in gnome-keyring on a session bus where systemd puts it (no
// DBUS_SESSION_BUS_ADDRESS reaches `expense mcp`); and nowhere, when the tools must say `expense login`.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hasCommand, suiteRuns } from '@expense/test-kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type LiveWorkspace, startWithWorkspace } from '../../sql/test/setup.js';
import { CLI_BIN, cliBuilt, type Json } from './helpers.js';

const DOC = resolve(import.meta.dirname, '../../../../../../docs/mcp.md');

interface Documented {
  host: string;
  command: string;
  args: string[];
  /** The Inspector's `--method` part (tools/list, or tools/call of a tool). */
  method?: { name: 'tools/list' } | { name: 'tools/call'; tool: string };
}

/** The stdio configurations of docs/mcp.md's Configuration section, as written there. */
export function documentedConfigs(markdown: string): Documented[] {
  const section = markdown.slice(
    markdown.indexOf('## Configuration'),
    markdown.indexOf('\n## ', markdown.indexOf('## Configuration') + 5),
  );
  const out: Documented[] = [];
  const block = /\*\*([^*]+)\*\*[\s\S]*?\n```(json|sh)\n([\s\S]*?)```/g;
  for (const [, host, lang, text] of section.matchAll(block)) {
    if (lang === 'json') {
      const parsed = JSON.parse(text!) as {
        mcpServers?: Record<string, { command?: string; args?: string[] }>;
        servers?: Record<string, { command?: string; args?: string[] }>;
      };
      for (const server of Object.values(parsed.mcpServers ?? parsed.servers ?? {})) {
        if (server.command) out.push({ host: host!, command: server.command, args: server.args ?? [] });
      }
      continue;
    }
    for (const line of text!.split('\n').filter(Boolean)) {
      const words = line.trim().split(/\s+/);
      if (line.startsWith('claude mcp add')) {
        const [command, ...args] = words.slice(words.indexOf('--') + 1);
        out.push({ host: host!, command: command!, args });
      } else if (words.includes('--cli')) {
        const serverWords = words.slice(words.indexOf('--cli') + 1, words.indexOf('--method'));
        const method = words[words.indexOf('--method') + 1];
        const tool = words.includes('--tool-name') ? words[words.indexOf('--tool-name') + 1] : undefined;
        const [command, ...args] = serverWords;
        out.push({
          host: `${host!} (${method}${tool ? ` ${tool}` : ''})`,
          command: command!,
          args,
          method: method === 'tools/call' ? { name: 'tools/call', tool: tool! } : { name: 'tools/list' },
        });
      }
    }
  }
  return out;
}

const text = (result: Json): string =>
  (result.content ?? []).map((c: { text?: string }) => c.text ?? '').join('\n');

describe.runIf(cliBuilt('the docs/mcp.md configurations suite')).each(ENGINES.slice(0, 1))(
  'docs/mcp.md configurations on $name',
  (engine) => {
    let live: LiveWorkspace;
    let dir: string;
    let bin: string;
    let configs: Documented[];

    beforeAll(async () => {
      live = await startWithWorkspace(engine);
      dir = await mkdtemp(join(tmpdir(), 'expense-docs-configs-'));
      bin = join(dir, 'bin');
      await mkdir(bin);
      await writeFile(
        join(bin, 'expense'),
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} "$@"\n`,
        { mode: 0o755 },
      );
      configs = documentedConfigs(await readFile(DOC, 'utf8'));
    });
    afterAll(async () => {
      await live?.live.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** A HOME whose ~/.config/expense holds the profile (and the key, in the file store). */
    async function home(name: string, store: 'file' | 'keychain' | 'none'): Promise<string> {
      const path = join(dir, name);
      const config = join(path, '.config', 'expense');
      await mkdir(config, { recursive: true, mode: 0o700 });
      const apiUrl = `${live.live.origin}/v1`;
      await writeFile(
        join(config, 'config.json'),
        JSON.stringify({
          version: 1,
          profiles: {
            default: {
              apiUrl,
              ...(store === 'none' ? {} : { credentialStore: store }),
              workspaceId: live.workspaceId,
            },
          },
        }),
      );
      if (store === 'file') {
        const credentials = join(config, 'credentials.json');
        const account = `default@${new URL(apiUrl).origin}`;
        await writeFile(
          credentials,
          JSON.stringify({
            version: 1,
            keys: { [account]: { apiKey: live.user.apiKey, savedAt: new Date().toISOString() } },
          }),
        );
        await chmod(credentials, 0o600);
      }
      return path;
    }

    /** Starts a documented configuration as its host would, and does what the page shows (tools/list, a call). */
    async function start(
      config: Documented,
      homeDir: string,
    ): Promise<{ client: Client; stderr: () => string }> {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        // The SDK's default environment, with this test's HOME and the PATH that finds `expense`.
        env: { ...getDefaultEnvironment(), HOME: homeDir, PATH: `${bin}:${process.env.PATH ?? ''}` },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: 'docs-configs', version: '1' });
      await client.connect(transport);
      return { client, stderr: () => stderr };
    }

    it('finds every host of the page, each a stdio command of `expense mcp`', () => {
      const hosts = new Set(configs.map((c) => c.host.replace(/ \(.*$/, '')));
      for (const host of ['Claude Desktop', 'Claude Code', 'VS Code', 'Windsurf', 'MCP Inspector'])
        expect(
          [...hosts].some((h) => h.startsWith(host)),
          host,
        ).toBe(true);
      expect([...hosts].some((h) => h.startsWith('Cursor'))).toBe(true);
      for (const c of configs) {
        expect(c.command).toBe('expense');
        expect(c.args[0]).toBe('mcp');
      }
    });

    it('serves each configuration with the key in the 0600 file (no keychain, no env)', async () => {
      const homeDir = await home('file-home', 'file');
      for (const config of configs) {
        const { client, stderr } = await start(config, homeDir);
        try {
          const tools = await client.listTools();
          expect(
            tools.tools.map((t) => t.name),
            config.host,
          ).toContain('query');
          if (config.method?.name !== 'tools/list') {
            const result = (await client.callTool({
              name: config.method?.tool ?? 'list_workspaces',
              arguments: {},
            })) as Json;
            expect(result.isError, `${config.host}: ${text(result)} ${stderr()}`).toBeFalsy();
          }
        } finally {
          await client.close();
        }
      }
    }, 120_000);

    it('answers the client, naming `expense login`, when there is no key anywhere', async () => {
      const homeDir = await home('signed-out-home', 'none');
      const { client, stderr } = await start(configs[0]!, homeDir);
      try {
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
        const result = (await client.callTool({ name: 'list_workspaces', arguments: {} })) as Json;
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/Error not_signed_in/);
        expect(text(result)).toMatch(/expense login/);
        expect(stderr()).toMatch(/expense login/);
      } finally {
        await client.close();
      }
    }, 60_000);

    // The keyring case: a session bus where systemd puts it, /run/user/<uid>/bus, with gnome-keyring unlocked on it.
    const uid = process.getuid?.() ?? 0;
    const busSocket = `/run/user/${uid}/bus`;
    const keyringRuns =
      process.platform === 'linux' &&
      suiteRuns(
        'the keyring case of docs/mcp.md',
        ['dbus-daemon', 'gnome-keyring-daemon'].filter((tool) => !hasCommand(tool)),
        'bash .ci/keyring-deps.sh',
      );
    // Not a missing part: a session bus already there is not this test's to replace.
    const busTaken = existsSync(busSocket);
    if (keyringRuns && busTaken)
      console.warn(`skipped: the keyring case of docs/mcp.md, ${busSocket} is in use`);
    describe.runIf(keyringRuns && !busTaken)('with the key in gnome-keyring on /run/user/<uid>/bus', () => {
      let bus: ChildProcess | undefined;
      let busEnv: NodeJS.ProcessEnv;

      beforeAll(async () => {
        await mkdir(`/run/user/${uid}`, { recursive: true, mode: 0o700 });
        const conf = join(dir, 'session.conf');
        await writeFile(
          conf,
          `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${busSocket}</listen><auth>EXTERNAL</auth><standard_session_servicedirs/>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
        );
        bus = spawn('dbus-daemon', [`--config-file=${conf}`, '--nofork', '--nopidfile'], { stdio: 'ignore' });
        for (let i = 0; i < 100 && !existsSync(busSocket); i++) await new Promise((r) => setTimeout(r, 50));
        busEnv = { ...process.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${busSocket}` };
        spawnSync(
          'sh',
          ['-c', 'echo -n test-password | gnome-keyring-daemon --unlock --components=secrets'],
          {
            env: busEnv,
            stdio: 'ignore',
            timeout: 20_000,
          },
        );
        const keyring = createRequire(import.meta.url).resolve('@napi-rs/keyring', {
          paths: [resolve(import.meta.dirname, '../../../../../cli')],
        });
        const account = `default@${live.live.origin}`;
        const stored = spawnSync(
          process.execPath,
          [
            '-e',
            `const {Entry}=require(${JSON.stringify(keyring)}); new Entry("expense-cli", process.argv[1]).setPassword(process.argv[2])`,
            account,
            live.user.apiKey,
          ],
          { env: busEnv, encoding: 'utf8', timeout: 20_000 },
        );
        expect(stored.status, stored.stderr).toBe(0);
      }, 60_000);
      afterAll(async () => {
        bus?.kill(); // gnome-keyring-daemon leaves with its bus
        await rm(busSocket, { force: true });
      });

      it('serves each configuration with the key from the keychain, reached without DBUS_SESSION_BUS_ADDRESS', async () => {
        const homeDir = await home('keychain-home', 'keychain');
        for (const config of configs) {
          const { client, stderr } = await start(config, homeDir);
          try {
            const result = (await client.callTool({ name: 'list_workspaces', arguments: {} })) as Json;
            expect(result.isError, `${config.host}: ${text(result)} ${stderr()}`).toBeFalsy();
          } finally {
            await client.close();
          }
        }
      }, 120_000);
    });
  },
);
