// The MCP Inspector's CLI mode (inspector-cli 1.0.3; v2 needs Node 22) as people run it: a new process for every
// tool call (two with stdio), over Streamable HTTP and over stdio (`expense mcp`). Every tool, valid and refused,
// must come back as a result it can read. ~40 processes: in the slow project (clients.test.ts has the same tools
// through the SDK client and mcp-remote).
import { describe } from 'vitest';
import { clientsFixture, everyTool, inspector, PROCESS_PER_CALL_MS } from './clients-kit.js';
import { CLI_BIN, cliBuilt } from './helpers.js';

describe.runIf(cliBuilt('the MCP Inspector suite'))('the MCP Inspector CLI', () => {
  const { fixture, configDir, apiUrl, count } = clientsFixture();

  describe('MCP Inspector CLI (inspector-cli 1.0.3) over Streamable HTTP', () => {
    everyTool(
      fixture,
      () =>
        inspector(configDir, () => ({
          target: [
            `${fixture().live.origin}/mcp`,
            '--transport',
            'http',
            '--header',
            `Authorization: Bearer ${fixture().user.apiKey}`,
          ],
        })),
      count,
      PROCESS_PER_CALL_MS,
    );
  });

  describe('MCP Inspector CLI over stdio: a new expense mcp process for every call', () => {
    everyTool(
      fixture,
      () =>
        inspector(configDir, () => ({
          target: [process.execPath, CLI_BIN, 'mcp'],
          env: { EXPENSE_API_URL: apiUrl(), EXPENSE_API_KEY: fixture().user.apiKey, HOME: '/nonexistent' },
        })),
      count,
      PROCESS_PER_CALL_MS,
    );
  });
});
