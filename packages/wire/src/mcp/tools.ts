import {
  acceptedContent,
  type CallToolResult,
  inputRequired,
  type McpServer,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { HTTP_ERRORS, MCP_ERRORS, type McpErrorCode, mcpNextStep } from '../error-catalog.js';
import { GUIDE_TOPICS, guide } from '../guide/index.js';
import { REPORT_KINDS, ReportInputError, ReportInputSchema, reportData, reportScript } from '../reports.js';
import { type ApiErrorObject, type McpApi, McpApiError, type SqlResult } from './api.js';
import { type Confirmations, commitIdempotencyKey } from './confirm.js';
import { registerHistoryTools } from './history-tools.js';
import { lean } from './lean-schema.js';
import { fencedText, fitSqlResult } from './render.js';

export interface ToolOptions {
  api: McpApi;
  confirmations: Confirmations;
  /** Hide and refuse the writing tools. */
  readOnly?: boolean;
  /** Only this workspace may be used (its id). */
  pinnedWorkspaceId?: string;
  /** The protocol era of this instance: 2025-era ('legacy') or 2026-07-28 ('modern'). */
  era?: 'legacy' | 'modern';
  /**
   * Whether a 2025-era server→client elicitation request can reach the client: yes on stdio; no on stateless
   * HTTP, where the client's answer would arrive at another instance.
   */
  pushElicitation?: boolean;
}

// No description: every word here is repeated in four tools' schemas (the selected workspace is the default).
const WorkspaceArg = z.string().optional();

const Statement = z.object({
  index: z.number(),
  command: z.string(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.record(z.string(), z.unknown())),
  rowCount: z.number(),
  returnedRowCount: z.number(),
  totalRowCount: z.number(),
  truncated: z.boolean(),
});
const SqlOutput = z.object({
  workspaceId: z.string(),
  committed: z.boolean(),
  statements: z.array(Statement),
  textTruncated: z.boolean(),
  clock: z.record(z.string(), z.string()).optional(),
  changeId: z.string().optional(),
});
const ExecuteOutput = SqlOutput.extend({
  confirmToken: z.string().optional(),
  expiresAt: z.string().optional(),
  replayed: z.boolean().optional(),
});

export const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
export const inp = <T extends z.ZodType>(schema: T) => lean(schema, 'input');
export const out = <T extends z.ZodType>(schema: T) => lean(schema, 'output');

interface Failure {
  error: ApiErrorObject;
  nextAction: string;
  actions?: { name: string; method: string; url: string }[];
}

export function failure(f: Failure): CallToolResult {
  const lines = [`Error ${f.error.code}: ${f.error.message}`];
  if (f.error.hint) lines.push(`Hint: ${f.error.hint}`);
  lines.push(`Next: ${f.nextAction}`);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: f as unknown as Record<string, unknown>,
  };
}

export function mcpFailure(code: McpErrorCode, nextAction: string, hint?: string): CallToolResult {
  return failure({
    error: { code, message: MCP_ERRORS[code].message, ...(hint ? { hint } : {}), retryable: false },
    nextAction,
  });
}

/** The next legal step after an API error, in words an agent can act on (the error catalogue's). */
export function nextActionFor(e: McpApiError): string {
  return mcpNextStep(e.error, e.status);
}

/** A commit (or a revert) was sent and its answer never came: the catalogue's mutation_outcome_unknown. */
export function outcomeUnknown(message: string, variant?: 'revert'): CallToolResult {
  const entry = HTTP_ERRORS.mutation_outcome_unknown;
  const error = { code: 'mutation_outcome_unknown', message };
  return failure({
    error: {
      ...error,
      hint: variant ? entry.variants[variant].hint : entry.hint,
      retryable: entry.retryable,
    },
    nextAction: mcpNextStep(error, entry.status, variant),
  });
}

export async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpApiError) {
      return failure({
        error: error.error,
        nextAction: nextActionFor(error),
        ...(error.actions.length
          ? { actions: error.actions.map((a) => ({ name: a.name, method: a.method, url: a.url })) }
          : {}),
      });
    }
    if (error instanceof ReportInputError) {
      return mcpFailure('invalid_report', 'Fix the range or currency and call report again.', error.message);
    }
    throw error;
  }
}

function sqlResult(result: SqlResult, header: string[], extra: Record<string, unknown> = {}): CallToolResult {
  const fitted = fitSqlResult(result, header);
  const structured = { ...fitted.structured, textTruncated: fitted.textTruncated, ...extra };
  return { content: [{ type: 'text', text: fitted.text }], structuredContent: structured };
}

/** The tools of mcp.md on one McpServer, for any transport (history and revert where the API has them). */
export function registerTools(server: McpServer, o: ToolOptions): void {
  const { api, confirmations } = o;

  /** The workspace a call may use: the pinned one, the argument, or the server's default (undefined). */
  const workspaceFor = (requested: string | undefined): string | undefined | CallToolResult => {
    if (o.pinnedWorkspaceId && requested && requested !== o.pinnedWorkspaceId) {
      return mcpFailure('workspace_pinned', `Omit workspaceId or pass ${o.pinnedWorkspaceId}.`);
    }
    return o.pinnedWorkspaceId ?? requested;
  };
  const isResult = (v: unknown): v is CallToolResult => typeof v === 'object' && v !== null && 'isError' in v;

  server.registerTool(
    'list_workspaces',
    {
      description: 'Your workspaces and pending invitations.',
      inputSchema: inp(z.object({})),
      outputSchema: out(
        z.object({
          workspaces: z.array(
            z.object({ workspaceId: z.string(), name: z.string(), role: z.string(), selected: z.boolean() }),
          ),
          invitations: z.array(z.record(z.string(), z.unknown())),
          readOnly: z.boolean(),
          pinnedWorkspaceId: z.string().nullable(),
        }),
      ),
      annotations: READ,
    },
    () =>
      guarded(async () => {
        const [{ workspaces }, invitations] = await Promise.all([api.workspaces(), api.invitations()]);
        const visible = o.pinnedWorkspaceId
          ? workspaces.filter((w) => w.workspaceId === o.pinnedWorkspaceId)
          : workspaces;
        const data = {
          workspaces: visible,
          invitations,
          readOnly: Boolean(o.readOnly),
          pinnedWorkspaceId: o.pinnedWorkspaceId ?? null,
        };
        const header = [
          `${visible.length} workspace(s)${o.pinnedWorkspaceId ? ' (pinned)' : ''}, ${invitations.length} pending invitation(s)${o.readOnly ? '; read-only' : ''}.`,
        ];
        return { content: [{ type: 'text', text: fencedText(header, data) }], structuredContent: data };
      }),
  );

  server.registerTool(
    'get_schema',
    {
      description: 'Relations, columns, hints, functions, rules and limits.',
      inputSchema: inp(z.object({ workspaceId: WorkspaceArg, relations: z.array(z.string()).optional() })),
      outputSchema: out(
        z.object({
          relations: z.array(z.record(z.string(), z.unknown())),
          functions: z.array(z.string()),
          rules: z.array(z.string()),
          limits: z.record(z.string(), z.number()),
        }),
      ),
      annotations: READ,
    },
    ({ workspaceId, relations }) =>
      guarded(async () => {
        const ws = workspaceFor(workspaceId);
        if (isResult(ws)) return ws;
        const schema = await api.schema(ws);
        const data = relations?.length
          ? { ...schema, relations: schema.relations.filter((r) => relations.includes(r.name)) }
          : schema;
        const header = [
          `${data.relations.length} relation(s): ${data.relations.map((r) => r.name).join(', ')}.`,
        ];
        return {
          content: [{ type: 'text', text: fencedText(header, data) }],
          structuredContent: data as unknown as Record<string, unknown>,
        };
      }),
  );

  server.registerTool(
    'query',
    {
      description: 'Run one read-only SELECT. Read get_guide sql-dialect first.',
      inputSchema: inp(z.object({ sql: z.string(), workspaceId: WorkspaceArg })),
      outputSchema: out(SqlOutput),
      annotations: READ,
    },
    ({ sql, workspaceId }) =>
      guarded(async () => {
        const ws = workspaceFor(workspaceId);
        if (isResult(ws)) return ws;
        const result = await api.sql('/sql/query', sql, ws ? { workspaceId: ws } : {});
        return sqlResult(result, [`Workspace ${result.workspaceId}.`]);
      }),
  );

  if (!o.readOnly) {
    server.registerTool(
      'execute',
      {
        description:
          'INSERT/UPDATE/DELETE or an atomic script. Without confirmToken: a dry run, its effect and a confirmToken; after user approval, repeat with the same sql and token to commit.',
        inputSchema: inp(
          z.object({
            sql: z.string(),
            workspaceId: WorkspaceArg,
            confirmToken: z.string().optional(),
            idempotencyKey: z.string().max(200).optional(),
          }),
        ),
        outputSchema: out(ExecuteOutput),
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          openWorldHint: false,
        },
      },
      (args, ctx) =>
        guarded(async () => {
          const ws = workspaceFor(args.workspaceId);
          if (isResult(ws)) return ws;
          const keyId = await api.keyId();
          if (!args.confirmToken) {
            const dry = await api.sql('/sql', args.sql, { dryRun: true, ...(ws ? { workspaceId: ws } : {}) });
            const { token, expiresAt } = confirmations.issue(keyId, dry.workspaceId, args.sql);
            return sqlResult(
              dry,
              [
                `DRY RUN in workspace ${dry.workspaceId}: rolled back, nothing changed.`,
                'To commit: show the user this SQL and effect; after approval call execute with the same sql and this confirmToken (valid 10 minutes, once):',
                `confirmToken: ${token}`,
              ],
              { confirmToken: token, expiresAt },
            );
          }
          const verdict = confirmations.claim(args.confirmToken, keyId, args.sql, ws);
          if (!verdict.ok) {
            return mcpFailure(
              verdict.code,
              'Call execute without confirmToken for a new dry run of the exact SQL, then confirm with its token.',
            );
          }
          const { claims } = verdict;
          let spent = false;
          try {
            const asked = await askUser(server, ctx, args.sql, claims.w, o);
            if (asked === 'input') {
              confirmations.release(claims);
              spent = true;
              return inputRequiredResult(args.sql, claims.w);
            }
            if (asked === 'declined') {
              confirmations.spend(claims);
              spent = true;
              return mcpFailure(
                'confirmation_declined',
                'Nothing was changed. Ask the user what to do instead.',
              );
            }
            const result = await api.sql('/sql', args.sql, {
              workspaceId: claims.w,
              idempotencyKey: args.idempotencyKey ?? commitIdempotencyKey(claims),
            });
            confirmations.spend(claims);
            spent = true;
            return sqlResult(result, [
              `COMMITTED in workspace ${result.workspaceId}${result.changeId ? ` as change ${result.changeId} (the revert tool undoes it)` : ''}.`,
            ]);
          } catch (error) {
            if (spent) throw error;
            // A 4xx answer is definite: nothing ran (429: not even tried, so the token stays usable).
            const definite = error instanceof McpApiError && error.status < 500;
            if (definite && error.status !== 429) confirmations.spend(claims);
            else confirmations.release(claims);
            if (definite) throw error;
            const cause =
              error instanceof McpApiError ? `${error.error.code}: ${error.error.message}` : String(error);
            return outcomeUnknown(`The commit's outcome is unknown (${cause}).`);
          }
        }),
    );
  }

  registerHistoryTools(server, o, workspaceFor);

  server.registerTool(
    'get_guide',
    {
      description: 'Short guides to read before writing SQL.',
      inputSchema: inp(z.object({ topic: z.enum(GUIDE_TOPICS) })),
      outputSchema: out(z.object({ topic: z.string(), markdown: z.string() })),
      annotations: READ,
    },
    ({ topic }) => {
      const markdown = guide(topic);
      return { content: [{ type: 'text', text: markdown }], structuredContent: { topic, markdown } };
    },
  );

  server.registerTool(
    'report',
    {
      description:
        "A fixed report for a date range (to inclusive) in one currency (default: the workspace's); relay its notes.",
      inputSchema: inp(
        z.object({
          kind: z.enum(REPORT_KINDS),
          from: z.iso.date(),
          to: z.iso.date(),
          currency: z.string().optional(),
          workspaceId: WorkspaceArg,
        }),
      ),
      outputSchema: out(
        z.object({
          kind: z.string(),
          from: z.string(),
          to: z.string(),
          currency: z.string(),
          rows: z.array(z.record(z.string(), z.unknown())),
          fx: z.record(z.string(), z.unknown()),
          notes: z.array(z.string()),
        }),
      ),
      annotations: READ,
    },
    ({ workspaceId, ...input }) =>
      guarded(async () => {
        const ws = workspaceFor(workspaceId);
        if (isResult(ws)) return ws;
        const parsed = ReportInputSchema.safeParse(input);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new ReportInputError(`${issue?.path.join('.') ?? 'input'}: ${issue?.message ?? 'invalid'}`);
        }
        // The statements of GET /reports, one query each, shaped by the same function.
        const results: SqlResult[] = [];
        for (const sql of reportScript(parsed.data)) {
          results.push(await api.sql('/sql/query', sql, ws ? { workspaceId: ws } : {}));
        }
        const today = results[0]?.clock?.today ?? new Date().toISOString().slice(0, 10);
        const data = reportData(
          parsed.data,
          results.map((r) => r.statements[0] ?? { rows: [] }),
          today,
        );
        const header = [
          `Report ${data.kind} ${data.from}..${data.to} in ${data.currency}, workspace ${results[0]?.workspaceId}.`,
          ...data.notes,
        ];
        return { content: [{ type: 'text', text: fencedText(header, data) }], structuredContent: data };
      }),
  );
}

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
  workspaceId: string,
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

const confirmMessage = (sql: string, workspaceId: string) =>
  `An agent wants to commit this SQL in workspace ${workspaceId}:\n\n${sql.slice(0, 2000)}`;

export function inputRequiredResult(sql: string, workspaceId: string): CallToolResult {
  return inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        message: confirmMessage(sql, workspaceId),
        requestedSchema: ConfirmSchema,
      }),
    },
  }) as unknown as CallToolResult;
}
