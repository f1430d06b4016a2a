import {
  type Action,
  AddMemberBodySchema,
  CreateWorkspaceBodySchema,
  SendCodeBodySchema,
  SqlExecuteBodySchema,
  SqlQueryBodySchema,
  VerifyCodeBodySchema,
} from '@expense/wire';
import { z } from 'zod';

export interface Urls {
  /** Public origin (no trailing slash); `{base_url}` is this plus `/v1`. */
  publicUrl: string;
  /** Sign-in origin. */
  authUrl: string;
}

const inputs = {
  sendCode: z.toJSONSchema(SendCodeBodySchema),
  verifyCode: z.toJSONSchema(VerifyCodeBodySchema),
  createWorkspace: z.toJSONSchema(CreateWorkspaceBodySchema),
  addMember: z.toJSONSchema(AddMemberBodySchema),
  sqlQuery: z.toJSONSchema(SqlQueryBodySchema),
  sqlExecute: z.toJSONSchema(SqlExecuteBodySchema),
};

function fill(template: string, params: Record<string, string | undefined>): string | undefined {
  let missing = false;
  const url = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) missing = true;
    return encodeURIComponent(value ?? '');
  });
  return missing ? undefined : url;
}

/** Builds the legal next calls with absolute URLs from the configured origins. */
export class ActionBuilder {
  constructor(private readonly urls: Urls) {}

  get publicUrl(): string {
    return this.urls.publicUrl;
  }
  get baseUrl(): string {
    return `${this.urls.publicUrl}/v1`;
  }
  get authBaseUrl(): string {
    return this.urls.authUrl;
  }
  get sendCodeUrl(): string {
    return `${this.urls.authUrl}/api/agent/send-code`;
  }
  get verifyCodeUrl(): string {
    return `${this.urls.authUrl}/api/agent/verify-code`;
  }

  private api(
    name: string,
    method: Action['method'],
    path: string,
    params: Record<string, string | undefined> = {},
    input?: Record<string, unknown>,
  ): Action {
    const template = `${this.baseUrl}${path}`;
    const templated = path.includes('{');
    const action: Action = {
      name,
      method,
      url: (templated && fill(template, params)) || template,
      auth: 'ApiKey',
    };
    if (templated) action.urlTemplate = template;
    if (input) action.input = input;
    return action;
  }

  discover(): Action {
    return { name: 'discover', method: 'GET', url: `${this.baseUrl}/`, auth: 'none' };
  }
  sendCode(): Action {
    return { name: 'send_code', method: 'POST', url: this.sendCodeUrl, auth: 'none', input: inputs.sendCode };
  }
  verifyCode(): Action {
    return {
      name: 'verify_code',
      method: 'POST',
      url: this.verifyCodeUrl,
      auth: 'none',
      input: inputs.verifyCode,
    };
  }
  me(): Action {
    return this.api('get_me', 'GET', '/me');
  }
  listWorkspaces(): Action {
    return this.api('list_workspaces', 'GET', '/workspaces');
  }
  createWorkspace(): Action {
    return this.api('create_workspace', 'POST', '/workspaces', {}, inputs.createWorkspace);
  }
  selectWorkspace(workspaceId?: string): Action {
    return this.api('select_workspace', 'POST', '/workspaces/{workspaceId}/select', { workspaceId });
  }
  schema(): Action {
    return this.api('get_schema', 'GET', '/schema');
  }
  sqlQuery(): Action {
    return this.api('sql_query', 'POST', '/sql/query', {}, inputs.sqlQuery);
  }
  sqlExecute(): Action {
    return this.api('sql_execute', 'POST', '/sql/execute', {}, inputs.sqlExecute);
  }
  sqlScript(): Action {
    return this.api('sql_script', 'POST', '/sql', {}, inputs.sqlExecute);
  }
  listKeys(): Action {
    return this.api('list_keys', 'GET', '/keys');
  }
  revokeKey(connectionId?: string): Action {
    return this.api('revoke_key', 'DELETE', '/keys/{connectionId}', { connectionId });
  }
  listMembers(workspaceId?: string): Action {
    return this.api('list_members', 'GET', '/workspaces/{workspaceId}/members', { workspaceId });
  }
  addMember(workspaceId?: string): Action {
    return this.api(
      'add_member',
      'POST',
      '/workspaces/{workspaceId}/members',
      { workspaceId },
      inputs.addMember,
    );
  }
  removeMember(workspaceId?: string, userId?: string): Action {
    return this.api('remove_member', 'DELETE', '/workspaces/{workspaceId}/members/{userId}', {
      workspaceId,
      userId,
    });
  }
  listInvitations(): Action {
    return this.api('list_invitations', 'GET', '/invitations');
  }
  acceptInvitation(workspaceId?: string): Action {
    return this.api('accept_invitation', 'POST', '/invitations/{workspaceId}/accept', { workspaceId });
  }
  declineInvitation(workspaceId?: string): Action {
    return this.api('decline_invitation', 'DELETE', '/invitations/{workspaceId}', { workspaceId });
  }
  /** The SQL endpoints, once a workspace is selected. */
  sql(): Action[] {
    return [this.sqlQuery(), this.sqlExecute(), this.sqlScript()];
  }
}
