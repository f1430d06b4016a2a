import type {
  ApiRoute,
  ApiRouteName,
  ApiRoutes,
  ChangeData,
  ChangeRevertData,
  ChangesData,
  ImportData,
  InvitationsData,
  KeysData,
  MeData,
  MemberData,
  MembersData,
  PathParamNames,
  PathParams,
  QueryValues,
  RouteBody,
  RouteData,
  SchemaData,
  SelectWorkspaceData,
  SqlResultData,
  WorkspaceData,
  WorkspacesData,
} from '@expense/wire';
import type { ReportData, ReportInput } from '@expense/wire/reports';
import { ROUTE_PATHS, type RoutePath } from '@expense/wire/route-paths';
import type { z } from 'zod';
import { sqlResultData } from '../checks/wire.js';
import type { ApiClient, CallResult, ChangeGroup } from '../http/client.js';

export type { Invitation, Member } from '@expense/wire';

/** The route table's SQL routes. */
type SqlRouteName = 'sqlQuery' | 'sqlExecute' | 'sqlScript';

/** The SQL endpoints, by their paths in the route table: '/sql/query' | '/sql/execute' | '/sql'. */
export type SqlEndpoint = ApiRoutes[SqlRouteName]['path'];

export interface SqlOptions {
  dryRun?: boolean;
  idempotencyKey?: string;
  /** Overrides the default workspace for this call (X-Workspace-Id). */
  workspaceId?: string;
  /** A dry run's data.confirmToken: commits the same SQL (or revert) once. */
  confirmToken?: string;
  /** The change group a write joins (one entry of the history for many requests). */
  changeGroup?: ChangeGroup;
}

export interface ApiTarget {
  /** `{base_url}`, e.g. http://127.0.0.1:8787/v1 */
  apiUrl: string;
  apiKey: string;
  /** Sent as X-Workspace-Id on SQL calls unless a call names another. */
  workspaceId?: string;
}

/**
 * The wire's route table with its zod schemas, loaded by the first call that needs it. The SQL calls do not: their
 * routes come from the table's zod-free half and their answers are checked with a projection generated from the
 * wire's SQL result schema (checks/wire.ts), so `expense query` loads no zod.
 */
const wire = () => import('@expense/wire');

/** The SQL endpoints' routes by their paths, from the route table's zod-free half (no schemas load for them). */
export const SQL_ROUTES = {
  [ROUTE_PATHS.sqlQuery.path]: ROUTE_PATHS.sqlQuery,
  [ROUTE_PATHS.sqlExecute.path]: ROUTE_PATHS.sqlExecute,
  [ROUTE_PATHS.sqlScript.path]: ROUTE_PATHS.sqlScript,
} as const satisfies Record<SqlEndpoint, RoutePath>;

/** One request of a route: its path parameters (required when its template has any), query, body and headers. */
type RouteRequest<R extends ApiRoute> = (PathParamNames<R['path']> extends never
  ? { params?: undefined }
  : { params: PathParams<R> }) & {
  query?: QueryValues;
  body?: RouteBody<R>;
  /** The body as bytes (an import's file), sent as application/octet-stream. */
  bytes?: Uint8Array;
  workspaceId?: string | undefined;
  idempotencyKey?: string | undefined;
  changeGroup?: ChangeGroup | undefined;
};

/**
 * The expense API as typed calls, one method per route the CLI uses (gh's per-family api layer is the
 * model): commands and the MCP server call these and keep only presentation. Every method returns the
 * client's CallResult (validated data, raw data for --json, instructions, actions) or throws ApiError.
 * Methods, paths and data schemas come from the one route table (@expense/wire's API_ROUTES).
 */
export class ExpenseApi {
  constructor(
    readonly client: ApiClient,
    readonly target: ApiTarget,
  ) {}

  /**
   * The one call: the route of the table (loaded with its schemas) by name, its method, its filled path under
   * apiUrl, its data schema; the key; the headers given.
   */
  private async call<N extends ApiRouteName, R extends ApiRoute = ApiRoutes[N]>(
    name: N,
    ...[request]: PathParamNames<R['path']> extends never
      ? [request?: RouteRequest<R>]
      : [request: RouteRequest<R>]
  ): Promise<CallResult<RouteData<R>>> {
    const { API_ROUTES, fillPath } = await wire();
    const route: ApiRoute = API_ROUTES[name];
    const { params, query, body, bytes, workspaceId, idempotencyKey, changeGroup } = (request ??
      {}) as RouteRequest<ApiRoute>;
    return this.client.call<RouteData<R>>({
      method: route.method,
      url: `${this.target.apiUrl}${fillPath(route.path, params as Record<string, string> | undefined, query)}`,
      ...(route.data ? { data: route.data as z.ZodType<RouteData<R>> } : {}),
      apiKey: this.target.apiKey,
      ...(body !== undefined ? { body } : {}),
      ...(bytes ? { bytes: { data: bytes, contentType: 'application/octet-stream' } } : {}),
      ...(workspaceId ? { workspaceId } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      ...(changeGroup ? { changeGroup } : {}),
    });
  }

  me(): Promise<CallResult<MeData>> {
    return this.call('me');
  }

  // Workspaces
  workspaces(): Promise<CallResult<WorkspacesData>> {
    return this.call('workspaces');
  }

  createWorkspace(name: string): Promise<CallResult<WorkspaceData>> {
    return this.call('createWorkspace', { body: { name } });
  }

  selectWorkspace(workspaceId: string): Promise<CallResult<SelectWorkspaceData>> {
    return this.call('selectWorkspace', { params: { workspaceId } });
  }

  /** DELETE /workspaces/{id}: final; confirmName must be the workspace's name. */
  deleteWorkspace(workspaceId: string, confirmName: string): Promise<CallResult<undefined>> {
    return this.call('deleteWorkspace', { params: { workspaceId }, body: { confirmName } });
  }

  /** DELETE /me: the account, final; confirmEmail must be its address. */
  deleteAccount(confirmEmail: string): Promise<CallResult<undefined>> {
    return this.call('deleteAccount', { body: { confirmEmail } });
  }

  // Schema and SQL
  schema(workspaceId = this.target.workspaceId): Promise<CallResult<SchemaData>> {
    return this.call('schema', { workspaceId });
  }

  sql(endpoint: SqlEndpoint, sql: string, options: SqlOptions = {}): Promise<CallResult<SqlResultData>> {
    const route = SQL_ROUTES[endpoint];
    const workspaceId = options.workspaceId ?? this.target.workspaceId;
    return this.client.call({
      method: route.method,
      url: `${this.target.apiUrl}${route.path}`,
      data: sqlResultData,
      apiKey: this.target.apiKey,
      ...(workspaceId ? { workspaceId } : {}),
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
      ...(options.changeGroup && endpoint !== '/sql/query' ? { changeGroup: options.changeGroup } : {}),
      body:
        endpoint === '/sql/query'
          ? { sql }
          : {
              sql,
              ...(options.dryRun ? { dryRun: true } : {}),
              ...(options.confirmToken ? { confirmToken: options.confirmToken } : {}),
            },
    });
  }

  query(sql: string, options: Omit<SqlOptions, 'dryRun' | 'idempotencyKey'> = {}) {
    return this.sql('/sql/query', sql, options);
  }

  execute(sql: string, options: SqlOptions = {}) {
    return this.sql('/sql/execute', sql, options);
  }

  script(sql: string, options: SqlOptions = {}) {
    return this.sql('/sql', sql, options);
  }

  /** GET /reports/{kind}: a fixed report in one currency (the shared definitions of @expense/wire/reports). */
  report(input: ReportInput, workspaceId = this.target.workspaceId): Promise<CallResult<ReportData>> {
    const { kind, ...query } = input;
    // An empty option is no option (the server refuses an empty date or currency).
    const given = Object.fromEntries(Object.entries(query).filter(([, value]) => Boolean(value)));
    return this.call('report', { params: { kind }, query: given, workspaceId });
  }

  // Change history
  changes(
    options: { limit?: number; before?: string; idPrefix?: string; workspaceId?: string } = {},
  ): Promise<CallResult<ChangesData>> {
    const { workspaceId = this.target.workspaceId, idPrefix, limit, before } = options;
    return this.call('changes', { query: { idPrefix, limit, before }, workspaceId });
  }

  change(changeId: string, workspaceId = this.target.workspaceId): Promise<CallResult<ChangeData>> {
    return this.call('change', { params: { changeId }, workspaceId });
  }

  revertChange(changeId: string, options: SqlOptions = {}): Promise<CallResult<ChangeRevertData>> {
    return this.call('revertChange', {
      params: { changeId },
      workspaceId: options.workspaceId ?? this.target.workspaceId,
      idempotencyKey: options.idempotencyKey,
      changeGroup: options.changeGroup,
      body: options.dryRun
        ? { dryRun: true }
        : options.confirmToken
          ? { confirmToken: options.confirmToken }
          : {},
    });
  }

  /**
   * POST /imports: a bank file's bytes as the body, read and written by the server (the MCP `import` tool;
   * `expense import` reads the file itself).
   */
  importFile(
    file: Uint8Array,
    query: QueryValues,
    options: { workspaceId?: string | undefined; idempotencyKey?: string | undefined } = {},
  ): Promise<CallResult<ImportData>> {
    return this.call('importFile', {
      query,
      bytes: file,
      workspaceId: options.workspaceId ?? this.target.workspaceId,
      idempotencyKey: options.idempotencyKey,
    });
  }

  // Keys
  keys(): Promise<CallResult<KeysData>> {
    return this.call('keys');
  }

  revokeKey(connectionId: string): Promise<CallResult<undefined>> {
    return this.call('revokeKey', { params: { connectionId } });
  }

  // Members (owners manage them)
  members(workspaceId: string): Promise<CallResult<MembersData>> {
    return this.call('members', { params: { workspaceId } });
  }

  inviteMember(workspaceId: string, email: string): Promise<CallResult<MemberData>> {
    return this.call('addMember', { params: { workspaceId }, body: { email } });
  }

  removeMember(workspaceId: string, userId: string): Promise<CallResult<undefined>> {
    return this.call('removeMember', { params: { workspaceId, userId } });
  }

  // Invitations (the invitee's side)
  invitations(): Promise<CallResult<InvitationsData>> {
    return this.call('invitations');
  }

  acceptInvitation(workspaceId: string): Promise<CallResult<WorkspaceData>> {
    return this.call('acceptInvitation', { params: { workspaceId } });
  }

  declineInvitation(workspaceId: string): Promise<CallResult<undefined>> {
    return this.call('declineInvitation', { params: { workspaceId } });
  }
}
