import type { z } from 'zod';
import { CreateKeyBodySchema, CreateKeyDataSchema, KeysDataSchema, MeDataSchema } from './account.js';
import {
  SendCodeBodySchema,
  SendCodeDataSchema,
  VerifyCodeBodySchema,
  VerifyCodeDataSchema,
} from './auth.js';
import {
  ChangeDataSchema,
  ChangeRevertBodySchema,
  ChangeRevertDataSchema,
  ChangesDataSchema,
  ChangesQuerySchema,
} from './changes.js';
import { DiscoveryDataSchema, HealthDataSchema } from './discovery.js';
import { ImportDataSchema, ImportQuerySchema } from './imports.js';
import {
  DeleteAccountBodySchema,
  DeleteWorkspaceBodySchema,
  ExportQuerySchema,
  RestoreDataSchema,
  RestoreQuerySchema,
} from './portability.js';
import { ReportDataSchema, ReportQuerySchema } from './reports.js';
import { fastifyPath, ROUTE_PATHS, type RouteName, type RoutePath } from './route-paths.js';
import { SchemaDataSchema } from './schema.js';
import { SqlExecuteBodySchema, SqlQueryBodySchema, SqlResultDataSchema } from './sql.js';
import {
  AddMemberBodySchema,
  CreatedWorkspaceDataSchema,
  CreateWorkspaceBodySchema,
  InvitationsDataSchema,
  MemberDataSchema,
  MembersDataSchema,
  RenameWorkspaceBodySchema,
  SelectWorkspaceDataSchema,
  WorkspaceDataSchema,
  WorkspacesDataSchema,
} from './workspaces.js';

/*
 * The API's routes with their schemas: each route of ROUTE_PATHS (route-paths.ts, the one home of the names, methods
 * and paths) with the schema of its JSON body and of its query where it takes one, and the schema of its answer's
 * `data` (none for a 204). The server registers its routes from this table (Fastify's `:name` form by
 * fastifyPath), and the CLI, the MCP adapter, the console and the test kit build their requests from it or from
 * ROUTE_PATHS (pathOf), so a route and its callers cannot drift.
 */

export interface ApiRoute extends RoutePath {
  body?: z.ZodType;
  query?: z.ZodType;
  /** The success envelope's `data`; absent when the route answers 204 without a body. */
  data?: z.ZodType;
}

const R = ROUTE_PATHS;

export const API_ROUTES = {
  discovery: { ...R.discovery, data: DiscoveryDataSchema },
  health: { ...R.health, data: HealthDataSchema },
  ready: { ...R.ready, data: HealthDataSchema },
  me: { ...R.me, data: MeDataSchema },
  deleteAccount: { ...R.deleteAccount, body: DeleteAccountBodySchema },

  workspaces: { ...R.workspaces, data: WorkspacesDataSchema },
  createWorkspace: {
    ...R.createWorkspace,
    body: CreateWorkspaceBodySchema,
    data: CreatedWorkspaceDataSchema,
  },
  renameWorkspace: { ...R.renameWorkspace, body: RenameWorkspaceBodySchema, data: WorkspaceDataSchema },
  selectWorkspace: { ...R.selectWorkspace, data: SelectWorkspaceDataSchema },
  deleteWorkspace: { ...R.deleteWorkspace, body: DeleteWorkspaceBodySchema },
  /** Answers the export document itself (JSON, or a zip with ?format=csv), not an envelope. */
  exportWorkspace: { ...R.exportWorkspace, query: ExportQuerySchema },
  restoreWorkspace: { ...R.restoreWorkspace, query: RestoreQuerySchema, data: RestoreDataSchema },

  members: { ...R.members, data: MembersDataSchema },
  addMember: { ...R.addMember, body: AddMemberBodySchema, data: MemberDataSchema },
  removeMember: { ...R.removeMember },

  invitations: { ...R.invitations, data: InvitationsDataSchema },
  acceptInvitation: { ...R.acceptInvitation, data: WorkspaceDataSchema },
  declineInvitation: { ...R.declineInvitation },

  keys: { ...R.keys, data: KeysDataSchema },
  createKey: { ...R.createKey, body: CreateKeyBodySchema, data: CreateKeyDataSchema },
  revokeKey: { ...R.revokeKey },

  schema: { ...R.schema, data: SchemaDataSchema },
  sqlQuery: { ...R.sqlQuery, body: SqlQueryBodySchema, data: SqlResultDataSchema },
  sqlExecute: { ...R.sqlExecute, body: SqlExecuteBodySchema, data: SqlResultDataSchema },
  sqlScript: { ...R.sqlScript, body: SqlExecuteBodySchema, data: SqlResultDataSchema },

  changes: { ...R.changes, query: ChangesQuerySchema, data: ChangesDataSchema },
  change: { ...R.change, data: ChangeDataSchema },
  revertChange: { ...R.revertChange, body: ChangeRevertBodySchema, data: ChangeRevertDataSchema },

  report: { ...R.report, query: ReportQuerySchema, data: ReportDataSchema },

  /** The body is the bank file's bytes as sent (not JSON), at most IMPORT_MAX_BYTES. */
  importFile: { ...R.importFile, query: ImportQuerySchema, data: ImportDataSchema },
} as const satisfies { [N in RouteName]: ApiRoute };

/** Where the sign-in routes are mounted, on `{auth_url}` (not under API_PREFIX). */
export const AGENT_PREFIX = '/api/agent';

/** The e-mailed one-time-code sign-in, under AGENT_PREFIX. */
export const AGENT_ROUTES = {
  sendCode: { method: 'POST', path: '/send-code', body: SendCodeBodySchema, data: SendCodeDataSchema },
  verifyCode: {
    method: 'POST',
    path: '/verify-code',
    body: VerifyCodeBodySchema,
    data: VerifyCodeDataSchema,
  },
} as const satisfies Record<string, ApiRoute>;

export type ApiRoutes = typeof API_ROUTES;
export type ApiRouteName = keyof ApiRoutes;

/** The `data` a route answers with (undefined for a 204). */
export type RouteData<R extends ApiRoute> = R['data'] extends z.ZodType ? z.infer<R['data']> : undefined;

/** The body a route takes. */
export type RouteBody<R extends ApiRoute> = R['body'] extends z.ZodType ? z.input<R['body']> : undefined;

/** A route's method and URL as Fastify's `app.route({ ...fastifyRoute(route), schema, handler })` takes them. */
export function fastifyRoute<R extends ApiRoute>(route: R): { method: R['method']; url: string } {
  return { method: route.method, url: fastifyPath(route.path) };
}

export * from './route-paths.js';
