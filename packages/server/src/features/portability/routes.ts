import { Readable } from 'node:stream';
import {
  API_ROUTES,
  DeleteAccountBodySchema,
  DeleteWorkspaceBodySchema,
  ExportQuerySchema,
  fastifyRoute,
  RestoreDataSchema,
  RestoreQuerySchema,
  WorkspaceParamsSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, errorResponses, responses } from '../../platform/http/responses.js';
import { principalOf } from '../auth/authenticate.js';
import { accountScopeError, hasWholeReach } from '../auth/consent.js';
import { findMembership } from '../workspaces/store.js';
import { csvExport } from './csv-export.js';
import { deleteUserIn, deleteWorkspaceIn, ownedWorkspace, soleOwnedWorkspaces } from './delete.js';
import { exportFileName, exportHeader } from './header.js';
import { jsonExport } from './json-export.js';
import { busyOr } from './locks.js';
import { holdPlace, holdRestorePlace } from './place.js';
import { bodyText, keepBodyText, topLevelArrayTexts } from './raw-json.js';
import { parseExportDocument, restoreExport } from './restore.js';

const FINAL =
  'The deletion is final: there is no undo and no copy is kept; export first (GET /workspaces/{id}/export) to keep the data.';

/**
 * A workspace's data leaving and coming back, and deletions (issue 40): GET /v1/workspaces/{id}/export,
 * POST /v1/workspaces/{id}/restore, DELETE /v1/workspaces/{id} and DELETE /v1/me.
 */
export function portabilityRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const a = ctx.actions;

    app.route({
      ...fastifyRoute(API_ROUTES.exportWorkspace),
      schema: {
        tags: ['workspaces'],
        summary:
          "The workspace's data and change history as one versioned document (docs/export-format.md), streamed; ?format=csv: a zip of CSVs with a manifest",
        security: apiKeySecurity,
        params: WorkspaceParamsSchema,
        querystring: ExportQuerySchema,
        response: {
          200: z
            .unknown()
            .describe('application/json: the export document; application/zip with ?format=csv'),
          ...errorResponses,
        },
      },
      handler: async (request, reply) => {
        const { userId } = principalOf(request);
        await holdPlace(ctx, request, reply);
        const workspace = await findMembership(ctx.db, userId, request.params.workspaceId);
        const source = { db: ctx.db, workspaceId: workspace.workspaceId };
        const header = await exportHeader(source);
        const csv = request.query.format === 'csv';
        const stream = Readable.from(csv ? csvExport(source, header) : jsonExport(source, header));
        stream.on('error', (error) => request.log.warn({ err: error }, 'export stopped'));
        return reply
          .header('content-type', csv ? 'application/zip' : 'application/json; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="${exportFileName(header, csv ? 'zip' : 'json')}"`,
          )
          .header('cache-control', 'no-store')
          .send(stream);
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.restoreWorkspace),
      bodyLimit: ctx.config.restoreMaxBytes,
      preParsing: async (request, reply, payload) => {
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > ctx.config.restoreMaxBytes) {
          throw new ApiError(
            'payload_too_large',
            `The export is ${length} bytes; this server restores at most ${ctx.config.restoreMaxBytes}.`,
            { variant: 'restore', details: { limit: ctx.config.restoreMaxBytes } },
          );
        }
        await holdPlace(ctx, request, reply);
        holdRestorePlace(reply);
        return keepBodyText(request, payload);
      },
      schema: {
        tags: ['workspaces'],
        summary:
          'Load an export (the JSON document of GET /workspaces/{id}/export) into this workspace, empty unless ?replace=true, as one change of its history, after the history the export carries (owners)',
        description: `The body is the export document as written, at most ${ctx.config.restoreMaxBytes} bytes.`,
        security: apiKeySecurity,
        params: WorkspaceParamsSchema,
        querystring: RestoreQuerySchema,
        response: responses(200, RestoreDataSchema),
      },
      handler: async (request) => {
        const { userId, connectionId } = principalOf(request);
        const document = parseExportDocument(request.body);
        const replace = request.query.replace === 'true';
        const text = bodyText(request);
        const changeRowTexts = text === undefined ? undefined : topLevelArrayTexts(text, 'change_rows');
        const data = await ctx.db
          .transaction(async (tx) => {
            const workspace = await ownedWorkspace(tx, userId, request.params.workspaceId);
            return restoreExport(tx, document, {
              workspaceId: workspace.workspaceId,
              userId,
              connectionId,
              replace,
              ...(changeRowTexts ? { changeRowTexts } : {}),
            });
          })
          .catch((error: unknown) => {
            const e = error as { code?: string; message?: string };
            // A deferred constraint (balanced transfers) refuses at COMMIT.
            if (typeof e.code === 'string' && /^23/.test(e.code)) {
              throw new ApiError('invalid_request', `A row was refused by the database: ${e.message}.`, {
                variant: 'export_document',
                details: { sqlstate: e.code },
              });
            }
            throw busyOr(error);
          });
        return success(
          data,
          [
            data.changeId
              ? `Restored as one change (${data.changeId}${data.shortId ? `, short id ${data.shortId}` : ''}): GET /changes shows it; POST /changes/${data.changeId}/revert undoes it.`
              : 'The export held no rows: nothing was written.',
          ],
          [a.selectWorkspace(data.workspaceId), a.schema()],
        );
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.deleteWorkspace),
      config: { workspaceBoundKeys: 'refuse' },
      schema: {
        tags: ['workspaces'],
        summary: `Delete the workspace with all its data and history at once (owners); confirmName must equal its name. ${FINAL}`,
        security: apiKeySecurity,
        params: WorkspaceParamsSchema,
        body: DeleteWorkspaceBodySchema,
        response: { 204: z.null().describe('Deleted, for good'), ...errorResponses },
      },
      handler: async (request, reply) => {
        const { userId } = principalOf(request);
        await ctx.db.transaction(async (tx) => {
          const workspace = await ownedWorkspace(tx, userId, request.params.workspaceId);
          if (request.body.confirmName !== workspace.name) {
            throw new ApiError(
              'confirmation_mismatch',
              "confirmName is not the workspace's name; nothing was deleted.",
              {
                variant: 'workspace_name',
              },
            );
          }
          await deleteWorkspaceIn(tx, workspace.workspaceId);
        });
        return reply.code(204).send(null);
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.deleteAccount),
      config: { narrowKeys: 'refuse' },
      schema: {
        tags: ['account'],
        summary: `Delete the account: its keys, sessions, invitations, OAuth grants, memberships and the workspaces it alone owns; confirmEmail must equal its address. ${FINAL}`,
        security: apiKeySecurity,
        body: DeleteAccountBodySchema,
        response: { 204: z.null().describe('Deleted, for good'), ...errorResponses },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        if (!hasWholeReach(principal)) {
          throw accountScopeError(
            'Only a key with the whole of the account (not an OAuth connection) can delete it.',
          );
        }
        const { userId } = principal;
        await ctx.keyStore.transaction(async (tx, revoke) => {
          const { rows } = await tx.query<{ email: string }>(
            'SELECT email FROM expense_internal.users WHERE user_id = $1',
            [userId],
          );
          const email = rows[0]?.email;
          if (!email) throw new ApiError('invalid_api_key', 'The ApiKey is not valid.');
          if (request.body.confirmEmail.trim().toLowerCase() !== email.toLowerCase()) {
            throw new ApiError(
              'confirmation_mismatch',
              "confirmEmail is not the account's address; nothing was deleted.",
              {
                variant: 'account_email',
              },
            );
          }
          for (const workspaceId of await soleOwnedWorkspaces(tx, userId))
            await deleteWorkspaceIn(tx, workspaceId);
          // Revoked first, so that every process forgets the keys (the cache, LISTEN), then deleted with the user.
          await revoke({ userId });
          await deleteUserIn(tx, userId, email);
        });
        return reply.code(204).send(null);
      },
    });
  };
}
