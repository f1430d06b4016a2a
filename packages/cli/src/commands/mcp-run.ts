import { createExpenseMcpServer } from '@expense/wire/mcp';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Context } from '../context.js';
import { cliMcpApi } from '../mcp/api-adapter.js';
import { VERSION } from '../version.js';
import type { McpOptions } from './mcp.js';
import { findWorkspace } from './workspaces.js';

/** `expense mcp`: the MCP tools over stdio with the stored key. */
export async function mcp(ctx: Context, options: McpOptions): Promise<void> {
  const api = await ctx.api(); // not signed in: exit 4 before serving anything
  const ref = ctx.globals.workspace?.trim();
  const pinned = ref ? findWorkspace((await api.workspaces()).data.workspaces, ref) : undefined;
  const mcpApi = cliMcpApi(api);
  const transport = new StdioServerTransport(
    ctx.io.stdin as NodeJS.ReadStream,
    ctx.io.stdout as NodeJS.WriteStream,
  );
  const closed = new Promise<void>((resolve) => {
    ctx.io.stdin.once('end', resolve);
    ctx.io.stdin.once('close', resolve);
  });
  const handle = serveStdio(
    (mcpCtx) =>
      createExpenseMcpServer({
        era: mcpCtx.era,
        pushElicitation: true,
        api: mcpApi,
        readOnly: Boolean(options.readOnly),
        ...(pinned ? { pinnedWorkspaceId: pinned.workspaceId } : {}),
        version: VERSION,
      }),
    { transport, onerror: (error) => ctx.note(`mcp: ${error.message}`) },
  );
  ctx.note(
    `expense MCP server on stdio (${await ctx.apiUrl()}${pinned ? `, workspace ${pinned.name}` : ''}${options.readOnly ? ', read-only' : ''}).`,
  );
  await closed;
  await handle.close();
}
