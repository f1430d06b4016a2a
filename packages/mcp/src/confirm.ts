import {
  acceptedContent,
  type CallToolResult,
  inputRequired,
  type McpServer,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ToolOptions } from './options.js';

// Confirmations of writes: asking the user where the client can, else the confirmToken's dry run.

export type ToolContext = Parameters<Parameters<McpServer['registerTool']>[2]>[1];
const ConfirmSchema = z.object({ commit: z.boolean().describe('Commit this change?') });

/**
 * Asks the user directly where the client supports elicitation: 'yes' to go on (also where the client cannot be
 * asked — the confirmToken is the server-side confirmation), 'declined', or 'input' when the 2026-07-28
 * multi-round-trip answer must be requested first (an input-required result; the client retries with it).
 */
export async function askUser(
  server: McpServer,
  ctx: ToolContext,
  sql: string,
  workspaceId: string | undefined,
  o: ToolOptions,
): Promise<'yes' | 'declined' | 'input'> {
  const c = ctx as {
    mcpReq?: {
      inputResponses?: unknown;
      elicitInput?: (p: unknown) => Promise<{ action: string; content?: Record<string, unknown> }>;
    };
  };
  const responses = c.mcpReq?.inputResponses;
  if (responses !== undefined && responses !== null) {
    const answer = acceptedContent(responses as Record<string, unknown>, 'confirm');
    return answer?.commit === true ? 'yes' : 'declined';
  }
  if (!server.server.getClientCapabilities()?.elicitation) return 'yes';
  if (o.era === 'modern') return 'input';
  if (!o.pushElicitation || !c.mcpReq?.elicitInput) return 'yes';
  try {
    const result = await c.mcpReq.elicitInput({
      mode: 'form',
      message: confirmMessage(sql, workspaceId),
      requestedSchema: {
        type: 'object',
        properties: { commit: { type: 'boolean', title: 'Commit this change?' } },
        required: ['commit'],
      },
    });
    return result.action === 'accept' && result.content?.commit === true ? 'yes' : 'declined';
  } catch {
    // The client said it can ask the user but did not answer: do not commit without that answer.
    return 'declined';
  }
}

const confirmMessage = (sql: string, workspaceId: string | undefined) =>
  `An agent wants to commit this SQL in ${workspaceId ? `workspace ${workspaceId}` : 'the selected workspace'}:\n\n${sql.slice(0, 2000)}`;

export function inputRequiredResult(sql: string, workspaceId: string | undefined): CallToolResult {
  return inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        message: confirmMessage(sql, workspaceId),
        requestedSchema: ConfirmSchema,
      }),
    },
  }) as unknown as CallToolResult;
}
