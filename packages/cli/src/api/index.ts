import type {
  ChangeData,
  ChangeRevertData,
  ChangesData,
  InvitationsData,
  KeysData,
  MeData,
  MemberData,
  MembersData,
  SchemaData,
  SelectWorkspaceData,
  SqlResultData,
  WorkspaceData,
  WorkspacesData,
} from '@expense/wire';
import type { ReportData, ReportInput } from '@expense/wire/reports';
import { sqlResultData } from '../checks/wire.js';
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

const seg = encodeURIComponent;

/**
 * The wire's zod schemas, loaded by the first call that needs one: the SQL calls check their answer with a
 * hand-written check instead, so `expense query` loads neither zod nor the schemas.
 */
const wire = () => import('@expense/wire');

/**
 * The expense API as typed calls, one method per route the CLI uses (gh's per-family api layer is the
 * model): commands and the MCP server call these and keep only presentation. Every method returns the
 * client's CallResult (validated data, raw data for --json, instructions, actions) or throws ApiError.
 */
export class ExpenseApi {
  constructor(
    readonly client: ApiClient,
    readonly target: ApiTarget,
  ) {}

  private url(path: string): string {
    return `${this.target.apiUrl}${path}`;
  }

  private get auth() {
    return { apiKey: this.target.apiKey };
  }

  async me(): Promise<CallResult<MeData>> {
    return this.client.call({
      method: 'GET',
      url: this.url('/me'),
      data: (await wire()).MeDataSchema,
      ...this.auth,
    });
  }

  // Workspaces
  async workspaces(): Promise<CallResult<WorkspacesData>> {
    return this.client.call({
      method: 'GET',
      url: this.url('/workspaces'),
      data: (await wire()).WorkspacesDataSchema,
      ...this.auth,
    });
  }

  async createWorkspace(name: string): Promise<CallResult<WorkspaceData>> {
    return this.client.call({
      method: 'POST',
      url: this.url('/workspaces'),
      data: (await wire()).WorkspaceDataSchema,
      body: { name },
      ...this.auth,
    });
  }

  async selectWorkspace(workspaceId: string): Promise<CallResult<SelectWorkspaceData>> {
    return this.client.call({
      method: 'POST',
      url: this.url(`/workspaces/${seg(workspaceId)}/select`),
      data: (await wire()).SelectWorkspaceDataSchema,
      ...this.auth,
    });
  }

  // Schema and SQL
  async schema(workspaceId = this.target.workspaceId): Promise<CallResult<SchemaData>> {
    return this.client.call({
      method: 'GET',
      url: this.url('/schema'),
      data: (await wire()).SchemaDataSchema,
      ...this.auth,
      ...(workspaceId ? { workspaceId } : {}),
    });
  }

  sql(endpoint: SqlEndpoint, sql: string, options: SqlOptions = {}): Promise<CallResult<SqlResultData>> {
    const workspaceId = options.workspaceId ?? this.target.workspaceId;
    return this.client.call({
      method: 'POST',
      url: this.url(endpoint),
      data: sqlResultData,
      ...this.auth,
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
  async report(input: ReportInput, workspaceId = this.target.workspaceId): Promise<CallResult<ReportData>> {
    const { kind, ...query } = input;
    const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => Boolean(e[1])));
    return this.client.call({
      method: 'GET',
      url: this.url(`/reports/${seg(kind)}?${qs}`),
      data: (await import('@expense/wire/reports')).ReportDataSchema,
      ...this.auth,
      ...(workspaceId ? { workspaceId } : {}),
    });
  }

  // Change history
  async changes(
    options: { limit?: number; before?: string; idPrefix?: string; workspaceId?: string } = {},
  ): Promise<CallResult<ChangesData>> {
    const workspaceId = options.workspaceId ?? this.target.workspaceId;
    const query = new URLSearchParams();
    if (options.idPrefix !== undefined) query.set('idPrefix', options.idPrefix);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.before !== undefined) query.set('before', options.before);
    const qs = query.size > 0 ? `?${query}` : '';
    return this.client.call({
      method: 'GET',
      url: this.url(`/changes${qs}`),
      data: (await wire()).ChangesDataSchema,
      ...this.auth,
      ...(workspaceId ? { workspaceId } : {}),
    });
  }

  async change(changeId: string, workspaceId = this.target.workspaceId): Promise<CallResult<ChangeData>> {
    return this.client.call({
      method: 'GET',
      url: this.url(`/changes/${seg(changeId)}`),
      data: (await wire()).ChangeDataSchema,
      ...this.auth,
      ...(workspaceId ? { workspaceId } : {}),
    });
  }

  async revertChange(changeId: string, options: SqlOptions = {}): Promise<CallResult<ChangeRevertData>> {
    const workspaceId = options.workspaceId ?? this.target.workspaceId;
    return this.client.call({
      method: 'POST',
      url: this.url(`/changes/${seg(changeId)}/revert`),
      data: (await wire()).ChangeRevertDataSchema,
      ...this.auth,
      ...(workspaceId ? { workspaceId } : {}),
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
      ...(options.changeGroup ? { changeGroup: options.changeGroup } : {}),
      body: options.dryRun
        ? { dryRun: true }
        : options.confirmToken
          ? { confirmToken: options.confirmToken }
          : {},
    });
  }

  // Keys
  async keys(): Promise<CallResult<KeysData>> {
    return this.client.call({
      method: 'GET',
      url: this.url('/keys'),
      data: (await wire()).KeysDataSchema,
      ...this.auth,
    });
  }

  revokeKey(connectionId: string): Promise<CallResult<undefined>> {
    return this.client.call({ method: 'DELETE', url: this.url(`/keys/${seg(connectionId)}`), ...this.auth });
  }

  // Members (owners manage them)
  async members(workspaceId: string): Promise<CallResult<MembersData>> {
    return this.client.call({
      method: 'GET',
      url: this.url(`/workspaces/${seg(workspaceId)}/members`),
      data: (await wire()).MembersDataSchema,
      ...this.auth,
    });
  }

  async inviteMember(workspaceId: string, email: string): Promise<CallResult<MemberData>> {
    return this.client.call({
      method: 'POST',
      url: this.url(`/workspaces/${seg(workspaceId)}/members`),
      data: (await wire()).MemberDataSchema,
      body: { email },
      ...this.auth,
    });
  }

  removeMember(workspaceId: string, userId: string): Promise<CallResult<undefined>> {
    return this.client.call({
      method: 'DELETE',
      url: this.url(`/workspaces/${seg(workspaceId)}/members/${seg(userId)}`),
      ...this.auth,
    });
  }

  // Invitations (the invitee's side)
  async invitations(): Promise<CallResult<InvitationsData>> {
    return this.client.call({
      method: 'GET',
      url: this.url('/invitations'),
      data: (await wire()).InvitationsDataSchema,
      ...this.auth,
    });
  }

  async acceptInvitation(workspaceId: string): Promise<CallResult<WorkspaceData>> {
    return this.client.call({
      method: 'POST',
      url: this.url(`/invitations/${seg(workspaceId)}/accept`),
      data: (await wire()).WorkspaceDataSchema,
      ...this.auth,
    });
  }

  declineInvitation(workspaceId: string): Promise<CallResult<undefined>> {
    return this.client.call({
      method: 'DELETE',
      url: this.url(`/invitations/${seg(workspaceId)}`),
      ...this.auth,
    });
  }
}
