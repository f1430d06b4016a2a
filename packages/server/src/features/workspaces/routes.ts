import {
  API_ROUTES,
  CreatedWorkspaceDataSchema,
  CreateWorkspaceBodySchema,
  fastifyRoute,
  RenameWorkspaceBodySchema,
  SelectWorkspaceDataSchema,
  WORKSPACE_HEADER,
  WorkspaceDataSchema,
  WorkspaceParamsSchema,
  WorkspacesDataSchema,
} from '@expense/wire';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../platform/http/api-error.js';
import { success } from '../../platform/http/envelope.js';
import { apiKeySecurity, responses } from '../../platform/http/responses.js';
import { idempotencyHeaderSchema, ownerWrite } from '../../platform/idempotency/owner-write.js';
import type { Queryable } from '../../platform/storage/index.js';
import { principalOf } from '../auth/authenticate.js';
import { invitationPrompt } from '../invitations/prompt.js';
import { pendingInvitationCount } from '../invitations/store.js';
import {
  createWorkspace,
  findMembership,
  listWorkspaces,
  refuseBeyondWorkspaceCap,
  refuseTakenName,
  renameWorkspace,
  selectWorkspace,
} from './store.js';

/** A new workspace reports in USD and dates in UTC until someone says otherwise. */
const CONFIRM_SETTINGS =
  "Ask the user which reporting currency and time zone this workspace uses (USD and UTC unless given at creation; the zone decides what 'today' is and the zone SQL runs in), then set them: POST /sql/execute {\"sql\": \"UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin'\"}.";

const TIME_ZONE_HINT =
  'Send timeZone as an IANA name (Europe/Berlin, America/New_York, Asia/Tokyo), or leave it out for UTC.';

/** How many workspaces the user belongs to (as the SQL endpoints' workspace rule counts them). */
async function countMemberships(tx: Queryable, userId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM expense_internal.workspace_members WHERE user_id = $1',
    [userId],
  );
  return rows[0]?.n ?? 0;
}

/** GET/POST /v1/workspaces, PATCH /v1/workspaces/{workspaceId} and POST /v1/workspaces/{workspaceId}/select. */
export function workspaceRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const a = ctx.actions;

    app.route({
      ...fastifyRoute(API_ROUTES.workspaces),
      schema: {
        tags: ['workspaces'],
        summary: 'The workspaces you belong to',
        security: apiKeySecurity,
        response: responses(200, WorkspacesDataSchema),
      },
      handler: async (request) => {
        const { userId, connectionId, workspaceId: bound } = principalOf(request);
        const [all, pending] = await Promise.all([
          listWorkspaces(ctx.db, userId, connectionId),
          pendingInvitationCount(ctx.db, userId),
        ]);
        // A key bound to one workspace sees that workspace only.
        const workspaces = bound ? all.filter((w) => w.workspaceId === bound) : all;
        const invitations = invitationPrompt(pending, a);
        const instructions =
          workspaces.length === 0
            ? [
                'You have no workspace yet: ask the user for its name, reporting currency (ISO 4217) and time zone (IANA), then create it with POST /workspaces {"name", "currency", "timeZone"} (action create_workspace).',
              ]
            : [
                'Select the workspace to work in with POST /workspaces/{workspaceId}/select, then read GET /schema.',
              ];
        return success(
          { workspaces },
          [...instructions, ...invitations.instructions],
          [
            a.createWorkspace(),
            ...workspaces.map((w) => a.selectWorkspace(w.workspaceId)),
            ...(workspaces.length === 0 ? [a.selectWorkspace()] : []),
            ...invitations.actions,
          ],
        );
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.createWorkspace),
      config: {
        fieldCodes: { name: 'invalid_workspace_name' },
        fieldHints: {
          currency:
            'Send currency as an ISO 4217 code in upper case (EUR, USD, JPY), or leave it out for USD.',
          timeZone: TIME_ZONE_HINT,
        },
        workspaceBoundKeys: 'refuse',
      },
      schema: {
        tags: ['workspaces'],
        summary: 'Create a workspace with its reporting currency and time zone; you become its owner',
        security: apiKeySecurity,
        headers: z.object(idempotencyHeaderSchema),
        body: CreateWorkspaceBodySchema,
        response: responses(201, CreatedWorkspaceDataSchema),
      },
      handler: async (request, reply) => {
        const { userId, connectionId } = principalOf(request);
        const { name, currency, timeZone } = request.body;
        return ownerWrite(ctx, request, reply, connectionId, {
          endpoint: 'POST /workspaces',
          workspaceId: null,
          transaction: async (tx) => {
            await refuseBeyondWorkspaceCap(tx, userId, ctx.config.maxWorkspacesPerUser);
            await refuseTakenName(tx, userId, name);
            const created = await createWorkspace(tx, userId, name, { currency, timeZone });
            return { ...created, only: (await countMemberships(tx, userId)) === 1 };
          },
          // A zone this runtime knows and the database does not: the settings trigger refuses it.
          toApiError: (error) =>
            (error as { code?: unknown }).code === '23514'
              ? new ApiError('invalid_request', `timeZone: the database does not know "${timeZone}".`, {
                  hint: TIME_ZONE_HINT,
                })
              : error,
          answer: ({ settings, only, ...workspace }) => {
            const defaulted = [
              ...(currency ? [] : (['currency'] as const)),
              ...(timeZone ? [] : (['timeZone'] as const)),
            ];
            const confirm =
              defaulted.length === 0
                ? `It reports in ${settings.currency} and its dates, and SQL, are in ${settings.timeZone}.`
                : `${defaulted.join(' and ')} ${defaulted.length === 1 ? 'was' : 'were'} not given and defaulted (data.defaulted). ${CONFIRM_SETTINGS}`;
            // The SQL endpoints use a user's only workspace without a selection: no select call for a first one.
            const next = only
              ? 'It is your only workspace: the SQL endpoints use it without selecting it. Read GET /schema, then use SQL.'
              : 'Select it with POST /workspaces/{workspaceId}/select to use it for SQL.';
            return {
              status: 201,
              envelope: success(
                { workspace, settings, ...(defaulted.length ? { defaulted } : {}) },
                defaulted.length ? [confirm, next] : [next, confirm],
                [
                  ...(only ? [a.schema(), a.sqlQuery()] : []),
                  a.selectWorkspace(workspace.workspaceId),
                  a.listMembers(workspace.workspaceId),
                ],
              ),
            };
          },
        });
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.renameWorkspace),
      config: { fieldCodes: { name: 'invalid_workspace_name' } },
      schema: {
        tags: ['workspaces'],
        summary: 'Rename a workspace (owners)',
        security: apiKeySecurity,
        headers: z.object(idempotencyHeaderSchema),
        params: WorkspaceParamsSchema,
        body: RenameWorkspaceBodySchema,
        response: responses(200, WorkspaceDataSchema),
      },
      handler: async (request, reply) => {
        const { userId, connectionId } = principalOf(request);
        const { workspaceId } = request.params;
        return ownerWrite(ctx, request, reply, connectionId, {
          endpoint: 'PATCH /workspaces/{workspaceId}',
          workspaceId: null, // the id is in the body's hash: a record must not depend on the workspace existing
          transaction: (tx) => renameWorkspace(tx, userId, workspaceId, request.body.name),
          answer: (workspace) => ({
            status: 200,
            envelope: success({ workspace }, [], [a.listWorkspaces(), a.listMembers(workspace.workspaceId)]),
          }),
        });
      },
    });

    app.route({
      ...fastifyRoute(API_ROUTES.selectWorkspace),
      // Choosing where to read is not a write of the user's data: read-only keys may select.
      config: { keyAccess: 'read' },
      schema: {
        tags: ['workspaces'],
        summary: "Save a workspace as this key's default for SQL",
        security: apiKeySecurity,
        params: WorkspaceParamsSchema,
        response: responses(200, SelectWorkspaceDataSchema),
      },
      handler: async (request) => {
        const { userId, connectionId } = principalOf(request);
        const workspace = await findMembership(ctx.db, userId, request.params.workspaceId);
        await selectWorkspace(ctx.db, connectionId, workspace.workspaceId);
        return success(
          { workspace, sqlRequest: { header: WORKSPACE_HEADER, workspaceId: workspace.workspaceId } },
          [
            'This workspace is now the default for this key; X-Workspace-Id overrides it for one request.',
            'Read GET /schema before writing SQL.',
          ],
          [a.schema(), ...a.sql()],
        );
      },
    });
  };
}
