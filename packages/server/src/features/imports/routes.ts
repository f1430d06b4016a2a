import { createHash, randomUUID } from 'node:crypto';
import {
  buildInsert,
  clearingLegOf,
  fileRows,
  ImportError,
  type LedgerRow,
  noteWords,
  type PreparedImport,
  pairedBatches,
  pairWithWorkspace,
  problemWords,
  type RowProblem,
  type TransferBooked,
  transfersLine,
} from '@expense/import';
import {
  API_ROUTES,
  CHANGE_GROUP_HEADER,
  CHANGE_LABEL_HEADER,
  fastifyRoute,
  IDEMPOTENCY_HEADER,
  IMPORT_LISTED_ROWS,
  IMPORT_MAX_BYTES,
  type ImportData,
  ImportDataSchema,
  type ImportQuery,
  ImportQuerySchema,
  WORKSPACE_HEADER,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError, isApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { idempotencyKeyOf } from '../../platform/idempotency/key.js';
import { REPLAYED_HEADER } from '../../platform/idempotency/write.js';
import type { Principal } from '../auth/api-keys.js';
import { principalOf } from '../auth/authenticate.js';
import { redeemConfirmation } from '../sql/confirm-tokens.js';
import { clientGone } from '../sql/deadline.js';
import type { SqlRequest } from '../sql/service.js';
import { WorkspaceResolution } from '../sql/workspace.js';
import { ReadAbortedError, ReadBusyError, ReadDeadlineError, readPool } from './read-pool.js';
import { DATE_ORDER } from './read-protocol.js';

/**
 * POST /v1/imports (issue 37): a bank file's bytes read by @expense/import's prepareImport in the read pool's worker
 * threads (read-pool.ts: off the event loop, bounded) with hooks that never ask
 * (what a person would be asked is a coded refusal naming the query parameter that settles it), then written as
 * the CLI writes it: INSERT ... SELECT FROM VALUES batches of at most 100 rows that skip external_ids already
 * there, each run through the SQL endpoints' own handler (guard, limits, row-level security, history), all in one
 * change group, so the import is one change of the history.
 *
 * A dry run answers a confirmToken bound to the key, the workspace and the subject `-- import <SHA-256 of the bytes>
 * <account, charges, currency>`; a commit with it spends it in the transaction of its first batch, and keys its
 * batches by it (as /sql keys a commit by its token), so the same token again replays the commit: once, anywhere.
 */

interface SqlStatement {
  rowCount?: number | null;
  rows?: { external_id?: string | null }[];
}
interface SqlData {
  workspaceId: string;
  statements: SqlStatement[];
  changeId?: string | null;
  shortId?: string;
}

/** The rows' problems in the API's words (`problemWords`): the settings they name are the API's, not the CLI's. */
function inApiWords(details: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(details.problems)) return details;
  const problems = (details.problems as RowProblem[]).map((p) => ({
    line: p.line,
    ...(p.field === undefined ? {} : { field: p.field }),
    message: problemWords(p, 'api'),
  }));
  return { ...details, problems };
}

/**
 * The reader's refusal as the API's: the catalogue's codes, usage errors as invalid_request naming the parameter.
 * A refusal whose next step names a setting the API has too carries its situation (the catalogue's variant, with
 * every reader's words); any other keeps the reader's message and hint as written.
 */
export function importRefusal(error: ImportError): ApiError {
  const details = inApiWords(error.details ?? {});
  const variant = error.situation?.variant;
  // A CSV that does not parse, or rows that do not validate: the catalogue's words, not the reader's options.
  if (variant === 'csv_syntax' || variant === 'rows_refused')
    return new ApiError('import_unreadable', error.message, { variant, details });
  switch (error.code) {
    case 'import_ambiguous_sign':
      return new ApiError('import_ambiguous_sign', error.message, {
        details: { ...details, settle: ['chargesPositive=true', 'chargesNegative=true'] },
      });
    case 'import_unbalanced':
      return new ApiError('import_unbalanced', error.message, { details });
    case 'import_too_large':
      return new ApiError('import_too_large', error.message, { details: { limit: IMPORT_MAX_BYTES } });
    case 'import_unreadable':
    case 'invalid_csv':
      return new ApiError('import_unreadable', error.message, {
        ...(error.hint ? { hint: error.hint } : {}),
        details,
      });
    default: {
      const situation = error.situation;
      if (situation !== undefined && variant !== undefined) {
        // The catalogue's texts of the situation: a file that names no account, several accounts and an
        // ?account=, columns or a layout the API cannot be told (it takes no mapping).
        const path =
          variant === 'import_account' || variant === 'import_one_account' ? 'query.account' : 'query';
        // A layout refusal keeps the reader's message (it names the file and its columns).
        return new ApiError('invalid_request', variant === 'import_layout' ? error.message : undefined, {
          variant,
          ...(situation.facts === undefined ? {} : { facts: situation.facts }),
          details: { ...details, issues: [{ path, message: error.message }] },
        });
      }
      return new ApiError('invalid_request', error.message, {
        ...(error.hint ? { hint: error.hint } : {}),
        details: { ...details, issues: [{ path: 'query', message: error.message }] },
      });
    }
  }
}

/** Seconds a refused read is told to wait: a file of the limit's size reads in about that. */
const READ_RETRY_SECONDS = 2;

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A UUID made from a hash (version 4 bits set): the same request key gives the same change group. */
function uuidOf(hex: string): string {
  const h = `${hex.slice(0, 12)}4${hex.slice(13, 16)}${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 32)}`;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface ImportCall {
  principal: Principal;
  bytes: Uint8Array;
  query: ImportQuery;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  log: SqlRequest['log'];
  signal: AbortSignal;
}

export function importRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // The body is the file's bytes as sent, whatever its type, for this route only (this plugin's context).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: IMPORT_MAX_BYTES },
      (_request, body, done) => done(null, body),
    );

    /** The workspace's reporting_currency, for a file whose rows name none. */
    async function workspaceCurrency(workspaceId: string): Promise<string> {
      const { rows } = await ctx.db.query<{ reporting_currency: string }>(
        'SELECT reporting_currency FROM public.workspace_settings WHERE workspace_id = $1',
        [workspaceId],
      );
      return rows[0]?.reporting_currency ?? 'USD';
    }

    async function run(call: ImportCall): Promise<{ data: ImportData; replayed: boolean; notes: string[] }> {
      const { principal, query } = call;
      if (query.chargesPositive === 'true' && query.chargesNegative === 'true')
        throw new ApiError('invalid_request', 'chargesPositive and chargesNegative exclude each other.', {
          details: { issues: [{ path: 'query', message: 'one of chargesPositive, chargesNegative' }] },
        });
      const dryRun = query.dryRun === 'true';
      const header = call.headers[WORKSPACE_HEADER.toLowerCase()];
      const fileDigest = sha256(call.bytes);
      const name = query.name ?? 'import';
      const options = {
        account: query.account ?? null,
        charges:
          query.chargesPositive === 'true'
            ? 'positive'
            : query.chargesNegative === 'true'
              ? 'negative'
              : null,
        currency: query.currency?.toUpperCase() ?? null,
      };
      const subject = `-- import ${fileDigest} ${JSON.stringify(options)}`;
      // The Idempotency-Key is read once the file is, as before; the token's key stands in when there is none.
      const { confirm, key: confirmKey } = await redeemConfirmation(ctx.confirmations, {
        principal,
        token: query.confirmToken,
        subject,
        workspaceId: typeof header === 'string' ? header : undefined,
        dryRun,
        key: undefined,
        dryRunIssuePath: 'query.dryRun',
      }).catch((error: unknown) => {
        if (isApiError(error) && error.code === 'confirmation_mismatch')
          throw new ApiError(
            'confirmation_mismatch',
            'The confirmToken was issued for another file, other options (account, charges, currency) or another workspace.',
            { variant: 'import' },
          );
        throw error;
      });
      const workspace = new WorkspaceResolution(
        ctx.db,
        ctx.actions,
        principal,
        typeof header === 'string' ? header : confirm?.w,
      );
      const workspaceId = await workspace.resolve();

      let prepared: PreparedImport;
      try {
        // The file is read off the event loop (read-pool.ts); the one thing it may need of the workspace first.
        prepared = await readPool().read(
          {
            fileName: name,
            bytes: call.bytes,
            ...(query.account ? { account: query.account } : {}),
            ...(options.currency ? { currency: options.currency } : {}),
            ...(options.charges ? { charges: options.charges as 'positive' | 'negative' } : {}),
          },
          options.currency ?? (await workspaceCurrency(workspaceId)),
          { tenant: principal.userId, deadlineMs: ctx.config.sqlDeadlineMs, signal: call.signal },
        );
      } catch (error) {
        // Nobody reads this answer; it is coded as the SQL endpoints code a request whose client went away.
        if (error instanceof ReadAbortedError)
          throw new ApiError('deadline_exceeded', error.message, {
            details: { deadlineMs: ctx.config.sqlDeadlineMs, aborted: true },
          });
        if (error instanceof ReadDeadlineError)
          throw new ApiError('deadline_exceeded', error.message, {
            details: { deadlineMs: error.deadlineMs },
          });
        if (error instanceof ReadBusyError)
          throw new ApiError('rate_limited', error.message, {
            details: { retryAfterSeconds: READ_RETRY_SECONDS },
            headers: { 'retry-after': String(READ_RETRY_SECONDS) },
          });
        // Dates that read two ways: refused like wrong usage, never asked.
        if (error instanceof ImportError && error.code === DATE_ORDER)
          throw new ApiError('import_unreadable', error.message);
        if (error instanceof ImportError) throw importRefusal(error);
        throw error;
      }
      if (prepared.into !== 'ledger_entries') throw new Error('an import reads ledger rows');
      const target = prepared.target;
      // Card payments are transfers: paired with the paying account's entry when the workspace holds it.
      const paired = await pairWithWorkspace(prepared.rows, (sql) => readRows(sql));
      const rows: LedgerRow[] = [...paired.rows, ...paired.steps.map((step) => step.row)].sort(
        (a, b) => a.line - b.line,
      );
      // The reader's notes in the API's words (its settings by their parameter names), from the notes' data.
      const notes = [...prepared.noted.map((note) => noteWords(note, 'api')), ...paired.notes];
      const accounts = [...new Set(rows.map((r) => r.account_id))];
      const currencies = [...new Set(rows.map((r) => r.currency))];
      const r0 = prepared.reconciliation[0];

      const requestKey = idempotencyKeyOf(call.headers[IDEMPOTENCY_HEADER.toLowerCase()]);
      const key = requestKey ?? confirmKey;
      const groupId = key ? uuidOf(sha256(`import-group\n${principal.connectionId}\n${key}`)) : randomUUID();

      let changeId: string | undefined;
      let shortId: string | undefined;
      let replays = 0;
      const batches = pairedBatches(paired);
      // Every batch is dry-run first (all are checked before any commits); a file with nothing new then commits
      // nothing and makes no change in the history, unless a keyed request is to replay its kept answers.
      if (!dryRun) {
        const news = await runBatches(true);
        if (news.size === 0 && !key) return answer(news, undefined, undefined, false);
      }
      const final = await runBatches(dryRun);
      return answer(final, changeId, shortId, batches.length > 0 && replays === batches.length);

      /** A read in the workspace through the SQL endpoints' handler (guard, limits, row-level security). */
      async function readRows(sql: string): Promise<Record<string, unknown>[]> {
        const result = await ctx.sql.run('/sql/query', {
          principal,
          headers: { [WORKSPACE_HEADER.toLowerCase()]: workspaceId },
          body: { sql },
          arrivedAt: Date.now(),
          signal: call.signal,
          requestId: call.requestId,
          log: call.log,
        });
        const envelope = JSON.parse(result.body) as {
          ok: boolean;
          data?: { statements: { rows?: Record<string, unknown>[] }[] };
          error?: { code?: string; message?: string; details?: Record<string, unknown> };
        };
        if (!envelope.ok || !envelope.data)
          throw new ApiError((envelope.error?.code ?? 'internal_error') as never, envelope.error?.message, {
            ...(envelope.error?.details ? { details: envelope.error.details } : {}),
          });
        return envelope.data.statements[0]?.rows ?? [];
      }

      async function runBatches(dry: boolean): Promise<Set<string>> {
        const found = new Set<string>();
        for (const batch of batches) {
          const sql = batch.sql ?? `${buildInsert(batch.rows, target)}\nRETURNING external_id`;
          const headers: Record<string, string> = { [WORKSPACE_HEADER.toLowerCase()]: workspaceId };
          if (!dry) {
            headers[CHANGE_GROUP_HEADER.toLowerCase()] = groupId;
            headers[CHANGE_LABEL_HEADER.toLowerCase()] = encodeURIComponent(`import ${name}`.slice(0, 100));
            if (key)
              headers[IDEMPOTENCY_HEADER.toLowerCase()] =
                `import-${sha256(`${key}\n${batch.index}`).slice(0, 48)}`;
          }
          const result = await ctx.sql.run('/sql/execute', {
            principal,
            headers,
            body: { sql, ...(dry ? { dryRun: true } : {}) },
            // The token is spent with the first batch's write: a commit that fails before it leaves it unspent.
            ...(confirm && !dry && batch === batches[0] ? { confirm } : {}),
            arrivedAt: Date.now(),
            signal: call.signal,
            requestId: call.requestId,
            log: call.log,
          });
          const envelope = JSON.parse(result.body) as {
            ok: boolean;
            data?: SqlData;
            error?: { code: string };
          };
          if (!envelope.ok || !envelope.data) {
            // A kept refusal replayed: answer it as it was.
            const e = envelope.error as {
              code?: string;
              message?: string;
              details?: Record<string, unknown>;
            };
            throw new ApiError((e?.code ?? 'internal_error') as never, e?.message, {
              ...(e?.details ? { details: e.details } : {}),
            });
          }
          if (!dry && result.headers[REPLAYED_HEADER] === 'true') replays++;
          // A transfer's step changes one row when it does its work: its row of the file is booked.
          if (batch.sql) {
            if ((envelope.data.statements[0]?.rowCount ?? 0) > 0) found.add(batch.rows[0]!.external_id);
          } else
            for (const row of envelope.data.statements[0]?.rows ?? [])
              if (row.external_id) found.add(row.external_id);
          // The batches are one change (one group): each committed batch answers its id and short id (kept on replay).
          if (!dry && envelope.data.changeId) {
            changeId = envelope.data.changeId;
            shortId = envelope.data.shortId;
          }
        }
        return found;
      }

      async function answer(
        added: Set<string>,
        changeId: string | undefined,
        shortId: string | undefined,
        replayed: boolean,
      ): Promise<{ data: ImportData; replayed: boolean; notes: string[] }> {
        // The file's rows: a clearing leg is the other side of one of them, told in the transfers' note.
        const own = fileRows(rows);
        const toAdd = own.filter((r) => added.has(r.external_id));
        const present = own.filter((r) => !added.has(r.external_id));
        const booked: TransferBooked[] = [];
        for (const row of rows) {
          const leg = clearingLegOf(row);
          const of = leg === undefined ? undefined : own.find((r) => r.external_id === leg);
          if (of && added.has(row.external_id))
            booked.push({ line: of.line, kind: 'held', with: row.account_id });
        }
        for (const step of paired.steps)
          if (added.has(step.row.external_id))
            booked.push(
              step.kind === 'pair'
                ? { line: step.row.line, kind: 'paired', with: step.entry.account_id }
                : { line: step.row.line, kind: 'moved', with: step.from },
            );
        const transfers = transfersLine(booked.sort((a, b) => a.line - b.line));
        const skipped = [
          ...prepared.left,
          ...present.map((r) => ({ line: r.line, reason: 'already in the workspace' })),
        ].sort((a, b) => a.line - b.line);
        let token: { confirmToken: string; confirmTokenExpiresAt: string } | undefined;
        if (dryRun && toAdd.length > 0)
          token = await ctx.confirmations.issue(principal.connectionId, workspaceId, subject);
        const data: ImportData = {
          workspaceId,
          format: prepared.format,
          layout: prepared.bank?.name ?? null,
          account: accounts.length === 1 ? accounts[0]! : null,
          currency: currencies.length === 1 ? currencies[0]! : null,
          rows: { add: toAdd.length, skip: skipped.length, refuse: 0 },
          toAdd: toAdd.slice(0, IMPORT_LISTED_ROWS),
          skipped,
          refused: [],
          reconciliation: r0
            ? { opening: r0.opening, closing: r0.closing, sum: r0.sum, balanced: r0.balanced }
            : null,
          notes: transfers
            ? [
                ...notes,
                `${toAdd.length} row${toAdd.length === 1 ? '' : 's'} ${dryRun ? 'to add' : 'added'}, ${transfers}.`,
              ]
            : notes,
          committed: changeId !== undefined,
          ...(changeId ? { changeId } : {}),
          ...(changeId && shortId ? { shortId } : {}),
          ...(token ?? {}),
        };
        return { data, replayed, notes };
      }
    }

    app.route({
      ...fastifyRoute(API_ROUTES.importFile),
      bodyLimit: IMPORT_MAX_BYTES,
      preParsing: async (request) => {
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > IMPORT_MAX_BYTES)
          throw new ApiError('import_too_large', undefined, {
            variant: 'declared_length',
            facts: { length, limit: IMPORT_MAX_BYTES },
            details: { limit: IMPORT_MAX_BYTES },
          });
      },
      schema: {
        tags: ['sql'],
        summary:
          'Import a bank file (its bytes as the body: CSV of any layout, OFX/QFX, QIF, CAMT.05x, MT940) into ledger_entries as one change; dryRun=true says what it would add, skip and refuse',
        description: `The body is the file as the bank exports it (any Content-Type, e.g. text/csv or application/octet-stream), at most ${IMPORT_MAX_BYTES} bytes; it must arrive within the server's request timeout (30 s unless configured). Rows whose external_id the workspace holds are skipped, so the same file imports once.`,
        security: apiKeySecurity,
        querystring: ImportQuerySchema,
        headers: z.object({
          [WORKSPACE_HEADER.toLowerCase()]: z.string().optional(),
          [IDEMPOTENCY_HEADER.toLowerCase()]: z.string().optional(),
        }),
        response: responses(200, ImportDataSchema),
      },
      handler: async (request, reply) => {
        const body = request.body;
        const bytes = Buffer.isBuffer(body) ? new Uint8Array(body) : new Uint8Array();
        if (bytes.length === 0)
          throw new ApiError('import_unreadable', 'The body is empty: send the bank file as the body.');
        const { data, replayed } = await run({
          principal: principalOf(request),
          bytes,
          query: request.query,
          headers: request.headers,
          requestId: request.id,
          log: request.log,
          signal: clientGone(reply.raw),
        });
        if (replayed) reply.header(REPLAYED_HEADER, 'true');
        const instructions = data.committed
          ? [
              `Imported ${data.rows.add} row(s) as change ${data.changeId}${data.shortId ? ` (short id ${data.shortId})` : ''}: POST /changes/${data.changeId}/revert undoes it.`,
            ]
          : data.confirmToken
            ? [
                `Dry run: ${data.rows.add} row(s) would be added and ${data.rows.skip} skipped. Show the user toAdd; to commit, send the same file again without dryRun (or with ?confirmToken=).`,
              ]
            : [`Nothing to add: ${data.rows.skip} row(s) skipped.`];
        return success(data, instructions);
      },
    });
  };
}
