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
 * The API's routes, once: each with its method, its path template under /v1 (`{name}` for a path parameter), the
 * schema of its JSON body and of its query where it takes one, and the schema of its answer's `data` (none for a
 * 204). The server registers its routes from this table (Fastify's `:name` form by fastifyPath), and the CLI, the
 * MCP adapter and the test kit build their requests from it (pathOf), so a route and its callers cannot drift.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Where the table's paths are mounted. */
export const API_PREFIX = '/v1';

export interface ApiRoute {
  method: HttpMethod;
  /** Under API_PREFIX, e.g. `/changes/{changeId}/revert`. */
  path: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /** The success envelope's `data`; absent when the route answers 204 without a body. */
  data?: z.ZodType;
}

export const API_ROUTES = {
  discovery: { method: 'GET', path: '/', data: DiscoveryDataSchema },
  health: { method: 'GET', path: '/healthz', data: HealthDataSchema },
  ready: { method: 'GET', path: '/readyz', data: HealthDataSchema },
  me: { method: 'GET', path: '/me', data: MeDataSchema },
  deleteAccount: { method: 'DELETE', path: '/me', body: DeleteAccountBodySchema },

  workspaces: { method: 'GET', path: '/workspaces', data: WorkspacesDataSchema },
  createWorkspace: {
    method: 'POST',
    path: '/workspaces',
    body: CreateWorkspaceBodySchema,
    data: CreatedWorkspaceDataSchema,
  },
  renameWorkspace: {
    method: 'PATCH',
    path: '/workspaces/{workspaceId}',
    body: RenameWorkspaceBodySchema,
    data: WorkspaceDataSchema,
  },
  selectWorkspace: {
    method: 'POST',
    path: '/workspaces/{workspaceId}/select',
    data: SelectWorkspaceDataSchema,
  },
  deleteWorkspace: { method: 'DELETE', path: '/workspaces/{workspaceId}', body: DeleteWorkspaceBodySchema },
  /** Answers the export document itself (JSON, or a zip with ?format=csv), not an envelope. */
  exportWorkspace: { method: 'GET', path: '/workspaces/{workspaceId}/export', query: ExportQuerySchema },
  restoreWorkspace: {
    method: 'POST',
    path: '/workspaces/{workspaceId}/restore',
    query: RestoreQuerySchema,
    data: RestoreDataSchema,
  },

  members: { method: 'GET', path: '/workspaces/{workspaceId}/members', data: MembersDataSchema },
  addMember: {
    method: 'POST',
    path: '/workspaces/{workspaceId}/members',
    body: AddMemberBodySchema,
    data: MemberDataSchema,
  },
  removeMember: { method: 'DELETE', path: '/workspaces/{workspaceId}/members/{userId}' },

  invitations: { method: 'GET', path: '/invitations', data: InvitationsDataSchema },
  acceptInvitation: { method: 'POST', path: '/invitations/{workspaceId}/accept', data: WorkspaceDataSchema },
  declineInvitation: { method: 'DELETE', path: '/invitations/{workspaceId}' },

  keys: { method: 'GET', path: '/keys', data: KeysDataSchema },
  createKey: { method: 'POST', path: '/keys', body: CreateKeyBodySchema, data: CreateKeyDataSchema },
  revokeKey: { method: 'DELETE', path: '/keys/{connectionId}' },

  schema: { method: 'GET', path: '/schema', data: SchemaDataSchema },
  sqlQuery: { method: 'POST', path: '/sql/query', body: SqlQueryBodySchema, data: SqlResultDataSchema },
  sqlExecute: { method: 'POST', path: '/sql/execute', body: SqlExecuteBodySchema, data: SqlResultDataSchema },
  sqlScript: { method: 'POST', path: '/sql', body: SqlExecuteBodySchema, data: SqlResultDataSchema },

  changes: { method: 'GET', path: '/changes', query: ChangesQuerySchema, data: ChangesDataSchema },
  change: { method: 'GET', path: '/changes/{changeId}', data: ChangeDataSchema },
  revertChange: {
    method: 'POST',
    path: '/changes/{changeId}/revert',
    body: ChangeRevertBodySchema,
    data: ChangeRevertDataSchema,
  },

  report: { method: 'GET', path: '/reports/{kind}', query: ReportQuerySchema, data: ReportDataSchema },

  /** The body is the bank file's bytes as sent (not JSON), at most IMPORT_MAX_BYTES. */
  importFile: { method: 'POST', path: '/imports', query: ImportQuerySchema, data: ImportDataSchema },
} as const satisfies Record<string, ApiRoute>;

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

/** The parameter names of a path template: `'/a/{x}/b/{y}'` → `'x' | 'y'`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamNames<Rest>
  : never;

/** The values a route's path parameters take. */
export type PathParams<R extends { path: string }> = { [K in PathParamNames<R['path']>]: string };

/** A query string's values; undefined ones are left out. */
export type QueryValues = Record<string, string | number | boolean | undefined>;

/** The `data` a route answers with (undefined for a 204). */
export type RouteData<R extends ApiRoute> = R['data'] extends z.ZodType ? z.infer<R['data']> : undefined;

/** The body a route takes. */
export type RouteBody<R extends ApiRoute> = R['body'] extends z.ZodType ? z.input<R['body']> : undefined;

/**
 * A route's path under API_PREFIX with its parameters filled in, percent-encoded, and the query's defined values
 * appended (`?a=1&b=2`, none when it has none): `pathOf(API_ROUTES.revertChange, { changeId })`.
 */
export function pathOf<R extends { path: string }>(route: R, ...[params, query]: PathArgs<R>): string {
  return fillPath(route.path, params, query);
}

/** pathOf's arguments after the route: its parameters (required when its template has any) and a query. */
export type PathArgs<R extends { path: string }> =
  PathParamNames<R['path']> extends never
    ? [params?: Record<string, never>, query?: QueryValues]
    : [params: PathParams<R>, query?: QueryValues];

/** A route's method and filled path (pathOf), for a caller that sends both. */
export function requestOf<R extends ApiRoute>(
  route: R,
  ...args: PathArgs<R>
): { method: R['method']; path: string } {
  const [params, query] = args as [Record<string, string> | undefined, QueryValues | undefined];
  return { method: route.method, path: fillPath(route.path, params, query) };
}

/** pathOf for a template known only at run time: throws a TypeError when a parameter has no value. */
export function fillPath(
  template: string,
  params: Record<string, string> = {},
  query: QueryValues = {},
): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${template}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  return search.size > 0 ? `${path}?${search}` : path;
}

/** A path template in Fastify's form: `/changes/{changeId}/revert` → `/changes/:changeId/revert`. */
export function fastifyPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ':$1');
}

/** A route's method and URL as Fastify's `app.route({ ...fastifyRoute(route), schema, handler })` takes them. */
export function fastifyRoute<R extends ApiRoute>(route: R): { method: R['method']; url: string } {
  return { method: route.method, url: fastifyPath(route.path) };
}
