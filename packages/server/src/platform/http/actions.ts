import {
  type Action,
  AGENT_PREFIX,
  AGENT_ROUTES,
  API_PREFIX,
  API_ROUTES,
  type ApiRoute,
  fillPath,
} from '@expense/wire';
import { z } from 'zod';

export interface Urls {
  /** Public origin (no trailing slash); `{base_url}` is this plus `/v1`. */
  publicUrl: string;
  /** Sign-in origin. */
  authUrl: string;
}

/** A route's body as JSON Schema, the action's `input` (made once per route). */
const bodySchemas = new WeakMap<ApiRoute, Record<string, unknown>>();
function inputOf(route: ApiRoute): Record<string, unknown> | undefined {
  if (!route.body) return undefined;
  let input = bodySchemas.get(route);
  if (!input) {
    input = z.toJSONSchema(route.body) as Record<string, unknown>;
    bodySchemas.set(route, input);
  }
  return input;
}

/** The route's path with its parameters, or undefined while one of them is not known yet. */
function filled(route: ApiRoute, params: Record<string, string | undefined>): string | undefined {
  const known: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) if (value !== undefined) known[name] = value;
  try {
    return fillPath(route.path, known);
  } catch {
    return undefined;
  }
}

/** Builds the legal next calls with absolute URLs from the configured origins. */
export class ActionBuilder {
  constructor(private readonly urls: Urls) {}

  get publicUrl(): string {
    return this.urls.publicUrl;
  }
  get baseUrl(): string {
    return `${this.urls.publicUrl}${API_PREFIX}`;
  }
  get authBaseUrl(): string {
    return this.urls.authUrl;
  }
  get sendCodeUrl(): string {
    return `${this.urls.authUrl}${AGENT_PREFIX}${AGENT_ROUTES.sendCode.path}`;
  }
  get verifyCodeUrl(): string {
    return `${this.urls.authUrl}${AGENT_PREFIX}${AGENT_ROUTES.verifyCode.path}`;
  }

  private api(name: string, route: ApiRoute, params: Record<string, string | undefined> = {}): Action {
    const template = `${this.baseUrl}${route.path}`;
    const path = filled(route, params);
    const action: Action = {
      name,
      method: route.method,
      url: path === undefined ? template : `${this.baseUrl}${path}`,
      auth: 'ApiKey',
    };
    if (route.path.includes('{')) action.urlTemplate = template;
    const input = inputOf(route);
    if (input) action.input = input;
    return action;
  }

  /** A sign-in route: on the auth origin, without a key. */
  private agent(name: string, route: ApiRoute, url: string): Action {
    const input = inputOf(route);
    return { name, method: route.method, url, auth: 'none', ...(input ? { input } : {}) };
  }

  discover(): Action {
    return { name: 'discover', method: API_ROUTES.discovery.method, url: `${this.baseUrl}/`, auth: 'none' };
  }
  sendCode(): Action {
    return this.agent('send_code', AGENT_ROUTES.sendCode, this.sendCodeUrl);
  }
  verifyCode(): Action {
    return this.agent('verify_code', AGENT_ROUTES.verifyCode, this.verifyCodeUrl);
  }
  me(): Action {
    return this.api('get_me', API_ROUTES.me);
  }
  listWorkspaces(): Action {
    return this.api('list_workspaces', API_ROUTES.workspaces);
  }
  createWorkspace(): Action {
    return this.api('create_workspace', API_ROUTES.createWorkspace);
  }
  selectWorkspace(workspaceId?: string): Action {
    return this.api('select_workspace', API_ROUTES.selectWorkspace, { workspaceId });
  }
  schema(): Action {
    return this.api('get_schema', API_ROUTES.schema);
  }
  sqlQuery(): Action {
    return this.api('sql_query', API_ROUTES.sqlQuery);
  }
  sqlExecute(): Action {
    return this.api('sql_execute', API_ROUTES.sqlExecute);
  }
  sqlScript(): Action {
    return this.api('sql_script', API_ROUTES.sqlScript);
  }
  listKeys(): Action {
    return this.api('list_keys', API_ROUTES.keys);
  }
  revokeKey(connectionId?: string): Action {
    return this.api('revoke_key', API_ROUTES.revokeKey, { connectionId });
  }
  listMembers(workspaceId?: string): Action {
    return this.api('list_members', API_ROUTES.members, { workspaceId });
  }
  addMember(workspaceId?: string): Action {
    return this.api('add_member', API_ROUTES.addMember, { workspaceId });
  }
  removeMember(workspaceId?: string, userId?: string): Action {
    return this.api('remove_member', API_ROUTES.removeMember, { workspaceId, userId });
  }
  listInvitations(): Action {
    return this.api('list_invitations', API_ROUTES.invitations);
  }
  acceptInvitation(workspaceId?: string): Action {
    return this.api('accept_invitation', API_ROUTES.acceptInvitation, { workspaceId });
  }
  declineInvitation(workspaceId?: string): Action {
    return this.api('decline_invitation', API_ROUTES.declineInvitation, { workspaceId });
  }
  /** The SQL endpoints, once a workspace is selected. */
  sql(): Action[] {
    return [this.sqlQuery(), this.sqlExecute(), this.sqlScript()];
  }
}
