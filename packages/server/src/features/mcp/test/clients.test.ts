// The MCP clients people run, pinned as dev dependencies: the 1.x SDK client (inside most desktop and IDE agents)
// over Streamable HTTP and over stdio (`expense mcp`), and `mcp-remote` (the stdio bridge to a remote /mcp) driven
// by the same client; the MCP Inspector's CLI mode is in clients-inspector.test.ts (a process per call: slow). Each
// validates structuredContent against the tool's output schema once it has listed the tools, whether or not
// isError is set: every tool, valid and refused, must come back as a result it can read, never as a client-side
// exception.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe } from 'vitest';
import { clientsFixture, everyTool, MCP_REMOTE, sdkCaller, sdkClient } from './clients-kit.js';
import { CLI_BIN, cliBuilt } from './helpers.js';

describe.runIf(cliBuilt('the MCP clients suite'))('the MCP clients people run', () => {
  const { fixture, configDir, count, stdioEnv } = clientsFixture();
  describe('@modelcontextprotocol/sdk 1.x over Streamable HTTP', () => {
    let client: Client;
    beforeAll(async () => {
      client = await sdkClient(
        new StreamableHTTPClientTransport(new URL(`${fixture().live.origin}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${fixture().user.apiKey}` } },
        }),
      );
    });
    afterAll(async () => client?.close());
    everyTool(fixture, () => sdkCaller(() => client), count);
  });

  describe('@modelcontextprotocol/sdk 1.x over stdio (expense mcp)', () => {
    let client: Client;
    beforeAll(async () => {
      client = await sdkClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI_BIN, 'mcp'],
          env: stdioEnv(),
          stderr: 'pipe',
        }),
      );
    });
    afterAll(async () => client?.close());
    everyTool(fixture, () => sdkCaller(() => client), count);
  });

  describe('mcp-remote 0.15 (stdio bridge to /mcp), driven by the 1.x SDK client', () => {
    let client: Client;
    beforeAll(async () => {
      client = await sdkClient(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            MCP_REMOTE,
            `${fixture().live.origin}/mcp`,
            '--header',
            `Authorization:ApiKey ${fixture().user.apiKey}`,
            '--transport',
            'http-only',
            '--allow-http',
          ],
          env: { PATH: process.env.PATH ?? '', HOME: configDir(), MCP_REMOTE_CONFIG_DIR: configDir() },
          stderr: 'pipe',
        }),
      );
    });
    afterAll(async () => client?.close());
    everyTool(fixture, () => sdkCaller(() => client), count);
  });
});
