import {
  API_ROUTES,
  type ApiRoute,
  type ChangeData,
  type ChangeRevertData,
  type ChangesData,
  fillPath,
  type InvitationsData,
  type KeysData,
  type MeData,
  type MemberData,
  type MembersData,
  type PathParamNames,
  type PathParams,
  type QueryValues,
  type RouteBody,
  type RouteData,
  type SchemaData,
  type SelectWorkspaceData,
  type SqlResultData,
  type WorkspaceData,
  type WorkspacesData,
} from '@expense/wire';
import type { ReportData, ReportInput } from '@expense/wire/reports';
import type { z } from 'zod';
import type { ApiClient, CallResult, ChangeGroup } from '../http/client.js';

export type { Invitation, Member } from '@expense/wire';

export type SqlEndpoint = '/sql/query' | '/sql/execute' | '/sql';

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

/** The route of each SQL endpoint. */
const SQL_ROUTES = {
  '/sql/query': API_ROUTES.sqlQuery,
  '/sql/execute': API_ROUTES.sqlExecute,
  '/sql': API_ROUTES.sqlScript,
} as const satisfies Record<SqlEndpoint, ApiRoute>;

/** One request of a route: its path parameters (required when its template has any), query, body and headers. */
type RouteRequest<R extends ApiRoute> = (PathParamNames<R['path']> extends never
  ? { params?: undefined }
  : { params: PathParams<R> }) & {
  query?: QueryValues;
  body?: RouteBody<R>;
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

  /** The one call: the route's method, its filled path under apiUrl, its data schema; the key; the headers given. */
  private call<R extends ApiRoute>(
    route: R,
    ...[request]: PathParamNames<R['path']> extends never
      ? [request?: RouteRequest<R>]
      : [request: RouteRequest<R>]
  ): Promise<CallResult<RouteData<R>>> {
    const { params, query, body, workspaceId, idempotencyKey, changeGroup } = (request ??
      {}) as RouteRequest<ApiRoute>;
    return this.client.call({
      method: route.method,
      url: `${this.target.apiUrl}${fillPath(route.path, params as Record<string, string> | undefined, query)}`,
      ...(route.data ? { data: route.data as z.ZodType<RouteData<R>> } : {}),
      apiKey: this.target.apiKey,
      ...(body !== undefined ? { body } : {}),
      ...(workspaceId ? { workspaceId } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      ...(changeGroup ? { changeGroup } : {}),
    });
  }

  me(): Promise<CallResult<MeData>> {
    return this.call(API_ROUTES.me);
  }

  // Workspaces
  workspaces(): Promise<CallResult<WorkspacesData>> {
    return this.call(API_ROUTES.workspaces);
  }

  createWorkspace(name: string): Promise<CallResult<WorkspaceData>> {
    return this.call(API_ROUTES.createWorkspace, { body: { name } });
  }

  selectWorkspace(workspaceId: string): Promise<CallResult<SelectWorkspaceData>> {
    return this.call(API_ROUTES.selectWorkspace, { params: { workspaceId } });
  }

  // Schema and SQL
  schema(workspaceId = this.target.workspaceId): Promise<CallResult<SchemaData>> {
    return this.call(API_ROUTES.schema, { workspaceId });
  }

  sql(endpoint: SqlEndpoint, sql: string, options: SqlOptions = {}): Promise<CallResult<SqlResultData>> {
    const headers = {
      workspaceId: options.workspaceId ?? this.target.workspaceId,
      idempotencyKey: options.idempotencyKey,
    };
    if (endpoint === '/sql/query') return this.call(SQL_ROUTES[endpoint], { ...headers, body: { sql } });
    return this.call(SQL_ROUTES[endpoint], {
      ...headers,
      changeGroup: options.changeGroup,
      body: {
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
    return this.call(API_ROUTES.report, { params: { kind }, query: given, workspaceId });
  }

  // Change history
  changes(
    options: { limit?: number; before?: string; idPrefix?: string; workspaceId?: string } = {},
  ): Promise<CallResult<ChangesData>> {
    const { workspaceId = this.target.workspaceId, idPrefix, limit, before } = options;
    return this.call(API_ROUTES.changes, { query: { idPrefix, limit, before }, workspaceId });
  }

  change(changeId: string, workspaceId = this.target.workspaceId): Promise<CallResult<ChangeData>> {
    return this.call(API_ROUTES.change, { params: { changeId }, workspaceId });
  }

  revertChange(changeId: string, options: SqlOptions = {}): Promise<CallResult<ChangeRevertData>> {
    return this.call(API_ROUTES.revertChange, {
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

  // Keys
  keys(): Promise<CallResult<KeysData>> {
    return this.call(API_ROUTES.keys);
  }

  revokeKey(connectionId: string): Promise<CallResult<undefined>> {
    return this.call(API_ROUTES.revokeKey, { params: { connectionId } });
  }

  // Members (owners manage them)
  members(workspaceId: string): Promise<CallResult<MembersData>> {
    return this.call(API_ROUTES.members, { params: { workspaceId } });
  }

  inviteMember(workspaceId: string, email: string): Promise<CallResult<MemberData>> {
    return this.call(API_ROUTES.addMember, { params: { workspaceId }, body: { email } });
  }

  removeMember(workspaceId: string, userId: string): Promise<CallResult<undefined>> {
    return this.call(API_ROUTES.removeMember, { params: { workspaceId, userId } });
  }

  // Invitations (the invitee's side)
  invitations(): Promise<CallResult<InvitationsData>> {
    return this.call(API_ROUTES.invitations);
  }

  acceptInvitation(workspaceId: string): Promise<CallResult<WorkspaceData>> {
    return this.call(API_ROUTES.acceptInvitation, { params: { workspaceId } });
  }

  declineInvitation(workspaceId: string): Promise<CallResult<undefined>> {
    return this.call(API_ROUTES.declineInvitation, { params: { workspaceId } });
  }
}
