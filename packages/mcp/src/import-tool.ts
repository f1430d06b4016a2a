import type { ImportData } from '@expense/wire';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type ImportCall, type Instructed, importerOf, McpApiError } from './api.js';
import { askUser, inputRequiredResult } from './confirm.js';
import { inp, out } from './lean-schema.js';
import type { ToolOptions } from './options.js';
import { fencedText, MAX_ROWS_PER_STATEMENT } from './render.js';
import { guarded, mcpFailure, outcomeUnknown } from './results.js';

// Built once per process, not per request: a stateless /mcp makes a server for every message. Lean on purpose
// (every word is context in every session): the result carries POST /imports's data, which docs/mcp.md lists.
const IMPORT_INPUT = inp(
  z.object({
    file: z.string(),
    encoding: z.enum(['base64']).optional(),
    name: z.string().optional(),
    account: z.string().optional(),
    charges: z.enum(['positive', 'negative']).optional(),
    currency: z.string().optional(),
    dryRun: z.boolean().optional(),
    confirmToken: z.string().optional(),
    idempotencyKey: z.string().max(200).optional(),
    workspaceId: z.string().optional(),
  }),
);
const IMPORT_OUTPUT = out(z.object({}));

/** Base64 as agents write it: the standard or the URL-safe alphabet, padded or not, wrapped in lines or not. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The file's bytes: its text as UTF-8, or its base64 decoded (strictly: a stray character is refused). */
export function fileBytes(file: string, encoding: 'base64' | undefined): Uint8Array {
  if (encoding !== 'base64') return new TextEncoder().encode(file);
  const compact = file.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new McpApiError(400, {
      code: 'invalid_request',
      message:
        'file is not base64: send the file\'s bytes in base64 with encoding: "base64", or its text without encoding.',
      details: { issues: [{ path: 'file', message: 'not base64' }] },
    });
  }
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/**
 * A refusal of POST /imports for the tool: the sign's settlement is the tool's argument. Its message and hint are
 * the catalogue's MCP words of the error's situation when the result is written (a layout, a CSV, rows, an account:
 * the reader's refusals carry their situation, so no hint naming `expense import`'s options reaches the tool).
 */
function forTheTool(error: McpApiError): McpApiError {
  const { details, ...rest } = error.error;
  return new McpApiError(
    error.status,
    {
      ...rest,
      ...(details === undefined
        ? {}
        : {
            details: Array.isArray(details.settle)
              ? { ...details, settle: [{ charges: 'positive' }, { charges: 'negative' }] }
              : details,
          }),
    },
    error.actions,
  );
}

/**
 * The import's data as a tool result: the skipped and refused lines capped like rows (their counts stay whole in
 * `rows`), the reader's notes as the API words them (a setting by the name the tool's argument shares). Everything
 * read from the file (rows, notes naming its columns and account) stays inside the fence: only counts and ids are
 * in the lines around it.
 */
function importResult(answer: ImportData & Instructed, header: string[]): CallToolResult {
  const { instructions: _instructions, replayed, confirmTokenExpiresAt, notes, ...data } = answer;
  const truncated =
    data.skipped.length > MAX_ROWS_PER_STATEMENT || data.refused.length > MAX_ROWS_PER_STATEMENT;
  const structured = {
    ...data,
    skipped: data.skipped.slice(0, MAX_ROWS_PER_STATEMENT),
    refused: data.refused.slice(0, MAX_ROWS_PER_STATEMENT),
    notes,
    ...(truncated ? { truncated: true } : {}),
    ...(confirmTokenExpiresAt ? { expiresAt: confirmTokenExpiresAt } : {}),
    ...(replayed ? { replayed: true } : {}),
  };
  const lines = [...header];
  const r = data.reconciliation;
  if (r) {
    lines.push(
      `Reconciliation: opening ${r.opening} + booked ${r.sum} = closing ${r.closing}${r.balanced ? '' : ' (does NOT add up)'}.`,
    );
  }
  if (structured.notes.length)
    lines.push('Tell the user the notes (what the reader decided: layout, dates, signs, account).');
  if (truncated) lines.push(`skipped and refused: the first ${MAX_ROWS_PER_STATEMENT} lines (TRUNCATED).`);
  // The token is in the lines above the fence once (an agent copies it from there), not again in the data.
  const { confirmToken: _token, expiresAt: _expiresAt, ...shown } = structured;
  return { content: [{ type: 'text', text: fencedText(lines, shown) }], structuredContent: structured };
}

const counts = (d: ImportData) =>
  `${d.rows.add} row(s) to add, ${d.rows.skip} skipped, ${d.rows.refuse} refused (${d.format}${d.layout ? `, layout ${d.layout}` : ''})`;

/**
 * `import`: a bank file through POST /imports, with `execute`'s confirmation flow — without confirmToken a dry run
 * that answers the rows to add, skip and refuse and a confirmToken (bound by the API to the key, the workspace,
 * the file's bytes and the account, charges and currency); with it, the same file committed as one change, once.
 */
export function registerImportTool(
  server: McpServer,
  o: ToolOptions,
  workspaceFor: (requested: string | undefined) => string | undefined | CallToolResult,
): void {
  const importer = importerOf(o.api);
  if (!importer || o.readOnly) return;
  const importFile = importer.importFile.bind(importer);
  const isResult = (v: unknown): v is CallToolResult => typeof v === 'object' && v !== null && 'isError' in v;

  server.registerTool(
    'import',
    {
      description:
        "Import a bank file (CSV, OFX/QFX, QIF, CAMT, MT940), confirmed like execute: the same file with its dry run's token commits.",
      inputSchema: IMPORT_INPUT,
      outputSchema: IMPORT_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args, ctx) =>
      guarded(async () => {
        const ws = workspaceFor(args.workspaceId);
        if (isResult(ws)) return ws;
        const bytes = fileBytes(args.file, args.encoding);
        const call: ImportCall = {
          ...(ws ? { workspaceId: ws } : {}),
          ...(args.name ? { name: args.name } : {}),
          ...(args.account ? { account: args.account } : {}),
          ...(args.charges ? { charges: args.charges } : {}),
          ...(args.currency ? { currency: args.currency } : {}),
        };
        const send = (c: ImportCall) =>
          importFile(bytes, c).catch((error: unknown) => {
            throw error instanceof McpApiError ? forTheTool(error) : error;
          });

        if (!args.confirmToken) {
          if (args.dryRun === false) {
            return mcpFailure(
              'confirmation_required',
              'Call import without confirmToken for a dry run, show the user the rows it would add, then call it again with the same file and its confirmToken.',
            );
          }
          const dry = await send({ ...call, dryRun: true });
          const where = `in workspace ${dry.workspaceId}`;
          return importResult(
            dry,
            dry.confirmToken
              ? [
                  `DRY RUN of the import ${where}: nothing was written. ${counts(dry)}.`,
                  'To commit: show the user the rows to add (toAdd, the first 100) and the notes; after approval call import with the same file and arguments and this confirmToken (valid 10 minutes, once):',
                  `confirmToken: ${dry.confirmToken}`,
                ]
              : [
                  `NOTHING TO ADD ${where}: ${counts(dry)}. Rows already in the workspace are skipped; no confirmToken.`,
                ],
          );
        }

        const subject = `-- import ${args.name ?? 'a bank file'} (${bytes.length} bytes)`;
        const asked = await askUser(server, ctx, subject, ws, o);
        if (asked === 'input') return inputRequiredResult(subject, ws);
        if (asked === 'declined') {
          return mcpFailure('confirmation_declined', 'Nothing was changed. Ask the user what to do instead.');
        }
        try {
          // The API checks the token (key, workspace, file and options, expiry) and spends it with the first batch.
          const done = await send({
            ...call,
            confirmToken: args.confirmToken,
            ...(args.dryRun ? { dryRun: true } : {}),
            ...(args.idempotencyKey ? { idempotencyKey: args.idempotencyKey } : {}),
          });
          const change = done.changeId
            ? ` as change ${done.changeId}${done.shortId ? ` (short id ${done.shortId}, as the console and the CLI show it to the user)` : ''}`
            : '';
          return importResult(done, [
            done.replayed
              ? `ALREADY COMMITTED in workspace ${done.workspaceId} with this confirmToken${change}: this is that import's kept answer; nothing ran again.`
              : done.committed
                ? `IMPORTED ${done.rows.add} row(s) in workspace ${done.workspaceId}${change} (the revert tool undoes it); ${done.rows.skip} skipped.`
                : `NOTHING ADDED in workspace ${done.workspaceId}: every row of the file is there already.`,
          ]);
        } catch (error) {
          // A 4xx answer is definite: nothing was committed. Anything else leaves the outcome unknown.
          if (error instanceof McpApiError && error.status < 500) throw error;
          const cause =
            error instanceof McpApiError ? `${error.error.code}: ${error.error.message}` : String(error);
          return outcomeUnknown(`The import's outcome is unknown (${cause}).`, 'import');
        }
      }, 'import'),
  );
}
