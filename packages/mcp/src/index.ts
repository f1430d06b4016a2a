import { McpServer } from '@modelcontextprotocol/server';
import type { ToolOptions } from './options.js';
import { registerPrompts, registerResources } from './resources.js';
import { sdkFailure } from './results.js';
import { registerTools } from './tools.js';

export { MCP_ERRORS, type McpErrorCode, mcpNextStep } from '@expense/wire/error-catalog';
export * from './api.js';
export type { ToolOptions } from './options.js';
export {
  errorText,
  fence,
  fencedJson,
  MAX_ROWS_PER_STATEMENT,
  MAX_TEXT_CHARS,
  parseErrorText,
  relayNotes,
  type ToolError,
  withNotes,
} from './render.js';
export { apiErrorResult } from './results.js';
export { sqlResult } from './tools.js';
export { mcpHint, mcpWords } from './words.js';

/** The tools' options (api, readOnly, pinnedWorkspaceId, era, pushElicitation) and the server's version. */
export interface ExpenseMcpOptions extends ToolOptions {
  version: string;
}

export const MCP_INSTRUCTIONS =
  'Expense data in SQL. Start with list_workspaces and get_guide (sql-dialect, writing-data). Reads: query or report. Writes: execute dry-runs first and returns a confirmToken; commit only after the user approved the shown effect.';

/** The expense MCP server (tools, resources, prompts) for one caller, on any transport. */
export function createExpenseMcpServer(o: ExpenseMcpOptions): McpServer {
  const server = new McpServer(
    { name: 'expense', version: o.version },
    { instructions: o.readOnly ? `${MCP_INSTRUCTIONS} This server is read-only.` : MCP_INSTRUCTIONS },
  );
  // The SDK answers two failures as tool results itself, through its (private) createToolError: arguments a tool's
  // input schema refuses, and a handler that threw. Replaced here, they take the contract's form as well (mcp.md:
  // a code and the fenced error JSON, not the SDK's bare text). test/mcp/suite.ts calls a tool with bad arguments.
  Object.defineProperty(server, 'createToolError', { value: sdkFailure });
  registerTools(server, o);
  registerResources(server, o.api, o.pinnedWorkspaceId);
  registerPrompts(server);
  return server;
}
