import type { ChangeRevertData } from '@expense/wire';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type Instructed, McpApiError } from './api.js';
import { askUser, inputRequiredResult } from './confirm.js';
import { inp, out, READ } from './lean-schema.js';
import type { ToolOptions } from './options.js';
import { fencedText } from './render.js';
import { guarded, mcpFailure, outcomeUnknown } from './results.js';

// Lean on purpose: every tool's schema costs context tokens in every session (the results carry all fields).
const RevertOutput = z.object({});

function revertResult(
  answer: ChangeRevertData & Instructed,
  header: string[],
  extra: Record<string, unknown> = {},
): CallToolResult {
  const { instructions: _instructions, replayed, ...data } = answer;
  const structured = { ...data, ...(replayed ? { replayed } : {}), ...extra };
  return { content: [{ type: 'text', text: fencedText(header, data) }], structuredContent: structured };
}

// Built once per process, not per request: a stateless /mcp makes a server for every message.
const HISTORY_INPUT = inp(z.object({}));
const HISTORY_OUTPUT = out(z.object({}));
const REVERT_INPUT = inp(
  z.object({
    changeId: z.string(),
    confirmToken: z.string().optional(),
  }),
);
const REVERT_OUTPUT = out(RevertOutput);

/**
 * `history` (the workspace's recorded changes, newest first) and `revert` (undo one change, through the same
 * dry run → confirmToken → commit path as `execute`), where the API has the change history.
 */
export function registerHistoryTools(
  server: McpServer,
  o: ToolOptions,
  workspaceFor: (requested: string | undefined) => string | undefined | CallToolResult,
): void {
  const { api } = o;
  const changes = api.changes?.bind(api);
  const revertChange = api.revertChange?.bind(api);
  const isResult = (v: unknown): v is CallToolResult => typeof v === 'object' && v !== null && 'isError' in v;
  if (!changes || !revertChange) return;

  server.registerTool(
    'history',
    {
      description: 'Recorded writes, newest first.',
      inputSchema: HISTORY_INPUT,
      outputSchema: HISTORY_OUTPUT,
      annotations: READ,
    },
    () =>
      guarded(async () => {
        // The selected (or pinned) workspace: no workspaceId argument, to keep the tool list short.
        const ws = workspaceFor(undefined);
        if (isResult(ws)) return ws;
        const data = await changes(ws ? { workspaceId: ws } : {});
        const header = [`${data.changes.length} change(s) in workspace ${data.workspaceId}, newest first.`];
        return {
          content: [{ type: 'text', text: fencedText(header, data) }],
          structuredContent: data as unknown as Record<string, unknown>,
        };
      }),
  );

  if (o.readOnly) return;
  server.registerTool(
    'revert',
    {
      description: 'Undo a change; confirmed like execute.',
      inputSchema: REVERT_INPUT,
      outputSchema: REVERT_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    (args, ctx) =>
      guarded(async () => {
        const ws = workspaceFor(undefined);
        if (isResult(ws)) return ws;
        const scope = ws ? { workspaceId: ws } : {};
        if (!args.confirmToken) {
          const { confirmToken, confirmTokenExpiresAt, ...dry } = await revertChange(args.changeId, {
            dryRun: true,
            ...scope,
          });
          return revertResult(
            dry,
            [
              `DRY RUN of reverting change ${args.changeId} in workspace ${dry.workspaceId}: rolled back, nothing changed. ${dry.rows.length} row(s) would be restored.`,
              'To commit: show the user these rows; after approval call revert with the same changeId and this confirmToken (valid 10 minutes, once):',
              `confirmToken: ${confirmToken}`,
            ],
            { confirmToken, expiresAt: confirmTokenExpiresAt },
          );
        }
        const subject = `-- revert change ${args.changeId}`;
        const asked = await askUser(server, ctx, subject, ws, o);
        if (asked === 'input') return inputRequiredResult(subject, ws);
        if (asked === 'declined') {
          return mcpFailure('confirmation_declined', 'Nothing was changed. Ask the user what to do instead.');
        }
        try {
          // The API checks the token (key, workspace, this change, expiry) and spends it with the revert, once.
          const result = await revertChange(args.changeId, { confirmToken: args.confirmToken, ...scope });
          return revertResult(result, [
            `REVERTED change ${args.changeId} in workspace ${result.workspaceId}; the revert is change ${result.changeId ?? '(none)'}${result.shortId ? ` (short id ${result.shortId})` : ''}.`,
          ]);
        } catch (error) {
          if (error instanceof McpApiError && error.status < 500) throw error;
          return outcomeUnknown(
            `The revert's outcome is unknown (${error instanceof McpApiError ? error.error.code : String(error)}).`,
            'revert',
          );
        }
      }, 'revert'),
  );
}
