import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ChangeRevertData } from '../changes.js';
import { McpApiError } from './api.js';
import { commitIdempotencyKey } from './confirm.js';
import { fencedText } from './render.js';
import {
  askUser,
  guarded,
  inp,
  inputRequiredResult,
  mcpFailure,
  out,
  outcomeUnknown,
  READ,
  type ToolOptions,
} from './tools.js';

// Lean on purpose: every tool's schema costs context tokens in every session (the results carry all fields).
const RevertOutput = z.object({});

/** What a confirmToken of `revert` is bound to, in place of SQL text. */
const revertSubject = (changeId: string) => `revert ${changeId}`;

function revertResult(
  data: ChangeRevertData,
  header: string[],
  extra: Record<string, unknown> = {},
): CallToolResult {
  const structured = { ...data, ...extra };
  return { content: [{ type: 'text', text: fencedText(header, data) }], structuredContent: structured };
}

/**
 * `history` (the workspace's recorded changes, newest first) and `revert` (undo one change, through the same
 * dry run → confirmToken → commit path as `execute`), where the API has the change history.
 */
export function registerHistoryTools(
  server: McpServer,
  o: ToolOptions,
  workspaceFor: (requested: string | undefined) => string | undefined | CallToolResult,
): void {
  const { api, confirmations } = o;
  const changes = api.changes?.bind(api);
  const revertChange = api.revertChange?.bind(api);
  const isResult = (v: unknown): v is CallToolResult => typeof v === 'object' && v !== null && 'isError' in v;
  if (!changes || !revertChange) return;

  server.registerTool(
    'history',
    {
      description: 'Recorded writes, newest first.',
      inputSchema: inp(z.object({})),
      outputSchema: out(z.object({})),
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
      description: 'Undo a change, dry run first like execute.',
      inputSchema: inp(
        z.object({
          changeId: z.string(),
          confirmToken: z.string().optional(),
        }),
      ),
      outputSchema: out(RevertOutput),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    (args, ctx) =>
      guarded(async () => {
        const ws = workspaceFor(undefined);
        if (isResult(ws)) return ws;
        const keyId = await api.keyId();
        const subject = revertSubject(args.changeId);
        if (!args.confirmToken) {
          const dry = await revertChange(args.changeId, { dryRun: true, ...(ws ? { workspaceId: ws } : {}) });
          const { token, expiresAt } = confirmations.issue(keyId, dry.workspaceId, subject);
          return revertResult(
            dry,
            [
              `DRY RUN of reverting change ${args.changeId} in workspace ${dry.workspaceId}: rolled back, nothing changed. ${dry.rows.length} row(s) would be restored.`,
              'To commit: show the user these rows; after approval call revert with the same changeId and this confirmToken (valid 10 minutes, once):',
              `confirmToken: ${token}`,
            ],
            { confirmToken: token, expiresAt },
          );
        }
        const verdict = confirmations.claim(args.confirmToken, keyId, subject, ws);
        if (!verdict.ok) {
          return mcpFailure(
            verdict.code,
            'Call revert without confirmToken for a new dry run of this change, then confirm with its token.',
          );
        }
        const { claims } = verdict;
        let spent = false;
        try {
          const asked = await askUser(server, ctx, `-- ${subject}`, claims.w, o);
          if (asked === 'input') {
            confirmations.release(claims);
            spent = true;
            return inputRequiredResult(`-- ${subject}`, claims.w);
          }
          if (asked === 'declined') {
            confirmations.spend(claims);
            spent = true;
            return mcpFailure(
              'confirmation_declined',
              'Nothing was changed. Ask the user what to do instead.',
            );
          }
          const result = await revertChange(args.changeId, {
            workspaceId: claims.w,
            idempotencyKey: commitIdempotencyKey(claims),
          });
          confirmations.spend(claims);
          spent = true;
          return revertResult(result, [
            `REVERTED change ${args.changeId} in workspace ${result.workspaceId}; the revert is change ${result.changeId ?? '(none)'}.`,
          ]);
        } catch (error) {
          if (spent) throw error;
          const definite = error instanceof McpApiError && error.status < 500;
          if (definite && error.status !== 429) confirmations.spend(claims);
          else confirmations.release(claims);
          if (definite) throw error;
          return outcomeUnknown(
            `The revert's outcome is unknown (${error instanceof McpApiError ? error.error.code : String(error)}).`,
            'revert',
          );
        }
      }),
  );
}
