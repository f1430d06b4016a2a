import { rulesFor, SqlResultDataSchema } from '@expense/wire';
import { checkedReportInput, REPORT_KINDS, ReportInputError, ReportInputSchema } from '@expense/wire/reports';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { McpApiError, type SqlResult } from './api.js';
import { askUser, inputRequiredResult } from './confirm.js';
import { GUIDE_TOPICS, guide } from './guide/index.js';
import { registerHistoryTools } from './history-tools.js';
import { registerImportTool } from './import-tool.js';
import { inp, out, READ } from './lean-schema.js';
import type { ToolOptions } from './options.js';
import { fencedText, fitSqlResult, relayNotes, withNotes } from './render.js';
import { guarded, mcpFailure, outcomeUnknown } from './results.js';

// No description: every word here is repeated in four tools' schemas (the selected workspace is the default).
const WorkspaceArg = z.string().optional();

// The SQL result's own schemas (sql.ts), with the text's cut said and the clock optional.
const { workspaceId, committed, statements, clock, changeId, shortId } = SqlResultDataSchema.shape;
const SqlOutput = z.object({
  workspaceId,
  committed,
  statements,
  textTruncated: z.boolean(),
  clock: clock.optional(),
  changeId,
  shortId,
});
const ExecuteOutput = SqlOutput.extend({
  confirmToken: z.string().optional(),
  expiresAt: z.string().optional(),
  replayed: z.boolean().optional(),
});

/** A SQL result as a tool result: capped and fenced, with the notes the API's instructions carry. */
export function sqlResult(
  result: SqlResult,
  header: string[],
  extra: Record<string, unknown> = {},
): CallToolResult {
  const { instructions, replayed: _replayed, ...data } = result;
  const fitted = fitSqlResult(data as SqlResult, header);
  const structured = { ...fitted.structured, textTruncated: fitted.textTruncated, ...extra };
  return withNotes(
    { content: [{ type: 'text', text: fitted.text }], structuredContent: structured },
    relayNotes(instructions),
  );
}

// Built once per process, not per request: a stateless /mcp makes a server for every message.
const LIST_WORKSPACES_INPUT = inp(z.object({}));
const LIST_WORKSPACES_OUTPUT = out(
  z.object({
    workspaces: z.array(
      z.object({ workspaceId: z.string(), name: z.string(), role: z.string(), selected: z.boolean() }),
    ),
    invitations: z.array(z.record(z.string(), z.unknown())),
    readOnly: z.boolean(),
    pinnedWorkspaceId: z.string().nullable(),
  }),
);
const GET_SCHEMA_INPUT = inp(
  z.object({ workspaceId: WorkspaceArg, relations: z.array(z.string()).optional() }),
);
const GET_SCHEMA_OUTPUT = out(
  z.object({
    relations: z.array(z.record(z.string(), z.unknown())),
    functions: z.array(z.string()),
    rules: z.array(z.string()),
    limits: z.record(z.string(), z.number()),
  }),
);
const QUERY_INPUT = inp(z.object({ sql: z.string(), workspaceId: WorkspaceArg }));
// The wire's words on the SQL result stay out of tools/list (its token budget); the tools' descriptions say them.
const QUERY_OUTPUT = out(SqlOutput, false);
const EXECUTE_INPUT = inp(
  z.object({
    sql: z.string(),
    workspaceId: WorkspaceArg,
    confirmToken: z.string().optional(),
    idempotencyKey: z.string().max(200).optional(),
  }),
);
const EXECUTE_OUTPUT = out(ExecuteOutput, false);
const GET_GUIDE_INPUT = inp(z.object({ topic: z.enum(GUIDE_TOPICS) }));
const GET_GUIDE_OUTPUT = out(z.object({ topic: z.string(), markdown: z.string() }));
const REPORT_INPUT = inp(
  z.object({
    kind: z.enum(REPORT_KINDS),
    from: z.iso.date(),
    to: z.iso.date(),
    currency: z.string().optional(),
    workspaceId: WorkspaceArg,
  }),
);
const REPORT_OUTPUT = out(
  z.object({
    kind: z.string(),
    from: z.string(),
    to: z.string(),
    currency: z.string(),
    rows: z.array(z.record(z.string(), z.unknown())),
    fx: z.record(z.string(), z.unknown()),
    notes: z.array(z.string()),
  }),
);

/** The tools of mcp.md on one McpServer, for any transport (history and revert where the API has them). */
export function registerTools(server: McpServer, o: ToolOptions): void {
  const { api } = o;

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
      inputSchema: LIST_WORKSPACES_INPUT,
      outputSchema: LIST_WORKSPACES_OUTPUT,
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
      description: 'Relations, columns, hints, functions, rules, limits.',
      inputSchema: GET_SCHEMA_INPUT,
      outputSchema: GET_SCHEMA_OUTPUT,
      annotations: READ,
    },
    ({ workspaceId, relations }) =>
      guarded(async () => {
        const ws = workspaceFor(workspaceId);
        if (isResult(ws)) return ws;
        const schema = await api.schema(ws);
        // The rules and hints of GET /schema that name the HTTP routes: an agent on MCP reads the catalogue's MCP words.
        const data = {
          ...schema,
          rules: rulesFor(schema.rules, 'mcp'),
          relations: schema.relations
            .filter((r) => !relations?.length || relations.includes(r.name))
            .map((r) => ({ ...r, hints: rulesFor(r.hints, 'mcp') })),
        };
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
      description: 'One read-only SELECT; read get_guide sql-dialect first.',
      inputSchema: QUERY_INPUT,
      outputSchema: QUERY_OUTPUT,
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
          'INSERT/UPDATE/DELETE or an atomic script. No confirmToken: a dry run, its effect and a confirmToken; after user approval the same sql with the token commits.',
        inputSchema: EXECUTE_INPUT,
        outputSchema: EXECUTE_OUTPUT,
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
          if (!args.confirmToken) {
            const dry = await api.sql('/sql', args.sql, { dryRun: true, ...(ws ? { workspaceId: ws } : {}) });
            const { confirmToken, confirmTokenExpiresAt, ...data } = dry;
            return sqlResult(
              data,
              [
                `DRY RUN in workspace ${dry.workspaceId}: rolled back, nothing changed.`,
                'To commit: show the user this SQL and effect; after approval call execute with the same sql and this confirmToken (valid 10 minutes, once):',
                `confirmToken: ${confirmToken}`,
              ],
              { confirmToken, expiresAt: confirmTokenExpiresAt },
            );
          }
          const asked = await askUser(server, ctx, args.sql, ws, o);
          if (asked === 'input') return inputRequiredResult(args.sql, ws);
          if (asked === 'declined') {
            return mcpFailure(
              'confirmation_declined',
              'Nothing was changed. Ask the user what to do instead.',
            );
          }
          try {
            // The API checks the token (key, workspace, exact SQL, expiry) and spends it with the write, once.
            const result = await api.sql('/sql', args.sql, {
              confirmToken: args.confirmToken,
              ...(ws ? { workspaceId: ws } : {}),
              ...(args.idempotencyKey ? { idempotencyKey: args.idempotencyKey } : {}),
            });
            if (result.replayed) {
              return sqlResult(
                result,
                [
                  `ALREADY COMMITTED in workspace ${result.workspaceId} with this confirmToken: this is that commit's kept answer; nothing ran again.`,
                ],
                { replayed: true },
              );
            }
            return sqlResult(result, [
              `COMMITTED in workspace ${result.workspaceId}${result.changeId ? ` as change ${result.changeId}${result.shortId ? ` (short id ${result.shortId}, as the console and the CLI show it to the user)` : ''}; the revert tool undoes it` : ''}.`,
            ]);
          } catch (error) {
            // A 4xx answer is definite: nothing ran. Anything else leaves the outcome unknown.
            if (error instanceof McpApiError && error.status < 500) throw error;
            const cause =
              error instanceof McpApiError ? `${error.error.code}: ${error.error.message}` : String(error);
            return outcomeUnknown(`The commit's outcome is unknown (${cause}).`);
          }
        }),
    );
  }

  registerHistoryTools(server, o, workspaceFor);
  registerImportTool(server, o, workspaceFor);

  server.registerTool(
    'get_guide',
    {
      description: 'Guides to read before writing SQL.',
      inputSchema: GET_GUIDE_INPUT,
      outputSchema: GET_GUIDE_OUTPUT,
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
        "A fixed report for a date range (to inclusive) in one currency (default: the workspace's); relay notes.",
      inputSchema: REPORT_INPUT,
      outputSchema: REPORT_OUTPUT,
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
        // GET /reports itself: its statements in one snapshot, one point of the key's limits, shaped as for every client.
        const {
          instructions: _instructions,
          replayed: _replayed,
          ...data
        } = await api.report(checkedReportInput(parsed.data), ws ? { workspaceId: ws } : {});
        const header = [`Report ${data.kind} ${data.from}..${data.to} in ${data.currency}.`, ...data.notes];
        return { content: [{ type: 'text', text: fencedText(header, data) }], structuredContent: data };
      }),
  );
}
