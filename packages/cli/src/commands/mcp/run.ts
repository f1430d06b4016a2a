import { createExpenseMcpServer } from '@expense/mcp';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ExpenseApi } from '../../api/index.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { cliMcpApi } from '../../mcp/api-adapter.js';
import { SIGNED_OUT_HINT, signedOutApi } from '../../mcp/signed-out.js';
import { VERSION } from '../../version.js';
import { findWorkspace } from '../workspaces/command.js';
import type { McpOptions } from './options.js';

/** The API with the stored key, or why there is none (no key anywhere, or a store that cannot be read). */
async function signedIn(ctx: Context): Promise<{ api: ExpenseApi } | { missing: CliError }> {
  try {
    return { api: await ctx.api() };
  } catch (error) {
    if (error instanceof CliError && SIGNED_OUT_CODES.has(error.code)) return { missing: error };
    throw error;
  }
}
const SIGNED_OUT_CODES = new Set(['not_signed_in', 'credential_store_unavailable']);

/** `expense mcp`: the MCP tools over stdio with the stored key. */
export async function mcp(ctx: Context, options: McpOptions): Promise<void> {
  const session = await signedIn(ctx);
  const ref = ctx.globals.workspace?.trim();
  const pinned =
    ref && 'api' in session
      ? findWorkspace((await session.api.workspaces()).data.workspaces, ref)
      : undefined;
  const mcpApi = 'api' in session ? cliMcpApi(session.api) : signedOutApi(session.missing);
  if ('missing' in session) {
    // Served anyway: the client shows each tool's not_signed_in error; the exit code says it once stdin closes.
    ctx.note(`expense mcp: ${session.missing.message} ${SIGNED_OUT_HINT}`);
    ctx.exitCode = session.missing.exitCode;
  }
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
    `expense MCP server on stdio (${await ctx.apiUrl()}${pinned ? `, workspace ${pinned.name}` : ''}${options.readOnly ? ', read-only' : ''}${'missing' in session ? ', not signed in' : ''}).`,
  );
  await closed;
  await handle.close();
}
