import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/http/api-error.js';
import type { Principal } from './api-keys.js';

/** The header that picks the workspace of a request (the SQL, schema and change routes read it). */
const WORKSPACE_HEADER = 'x-workspace-id';
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What the route does with the caller's data, for keys limited to reading: GET routes read and every other
     * method writes unless its route says `keyAccess: 'read'` (POST /sql/query, selecting a workspace).
     */
    keyAccess?: 'read' | 'write';
    /** `refuse`: a key bound to one workspace may not use this route (creating another workspace). */
    workspaceBoundKeys?: 'refuse';
    /**
     * `refuse`: a read-only or workspace-bound key may not use this route: it concerns the user's account
     * beyond the workspaces and access the key's consent covers (the invitations to other workspaces).
     */
    narrowKeys?: 'refuse';
  }
}

/** What the consent check reads of a Fastify request (the route's config, its method, params and headers). */
export type ConsentedRequest = Pick<FastifyRequest, 'method' | 'params' | 'headers'> & {
  routeOptions: { config: Pick<FastifyContextConfig, 'keyAccess' | 'narrowKeys' | 'workspaceBoundKeys'> };
};

/** What a call asks of a key's consent, as plain values (a route's, or an MCP tool's in-process SQL call). */
export interface ConsentAsk {
  access: 'read' | 'write';
  narrowKeys?: 'refuse' | undefined;
  workspaceBoundKeys?: 'refuse' | undefined;
  /** The workspaces the call names (a path parameter, X-Workspace-Id). */
  workspaceIds: readonly string[];
}

/** A key whose consent covers every workspace of its user, read and write. */
export function coversAllWorkspaces(principal: Principal): boolean {
  return principal.access === 'read_write' && principal.workspaceId === null;
}

/**
 * A key with the whole of its user's reach, the only kind that manages the user's keys (mints, lists others,
 * revokes others): every workspace, read and write, and not an OAuth connection (whose consent is to the data).
 */
export function hasWholeReach(principal: Principal): boolean {
  return principal.kind !== 'oauth' && coversAllWorkspaces(principal);
}

/** 403 for a key whose consent does not cover the user's account (its keys, its invitations). */
export function accountScopeError(message: string): ApiError {
  return new ApiError('forbidden', message, { variant: 'account_scope' });
}

/** The resource (RFC 8707) an OAuth access token of this server is issued for: its MCP endpoint. */
export function mcpResource(publicUrl: string): string {
  return `${publicUrl}/mcp`;
}

/** Audience check (RFC 8707): an OAuth access token is valid only at the resource it was issued for. */
export function hasAudience(principal: Principal, publicUrl: string): boolean {
  if (principal.kind !== 'oauth') return true;
  return principal.resource === mcpResource(publicUrl);
}

/**
 * The consent a key carries, as one rule: a `read` key may only read, a key bound to a workspace reaches that
 * workspace only. Throws the coded refusal; returns the workspace the call must run in (the bound one), if any.
 */
export function checkKeyConsent(principal: Principal, ask: ConsentAsk): string | undefined {
  if (principal.access === 'read' && ask.access === 'write') {
    throw new ApiError('forbidden', 'This key may only read: the user granted read access.', {
      variant: 'read_only_key',
      details: { access: principal.access },
    });
  }
  if (ask.narrowKeys === 'refuse' && !coversAllWorkspaces(principal)) {
    throw accountScopeError('This key is read-only or limited to one workspace: it cannot do this.');
  }
  const bound = principal.workspaceId;
  if (!bound) return undefined;
  if (ask.workspaceBoundKeys === 'refuse') {
    throw new ApiError('forbidden', 'This key is limited to one workspace and cannot do this.', {
      variant: 'workspace_bound_key',
      facts: { workspace: bound },
      details: { workspaceId: bound },
    });
  }
  for (const id of ask.workspaceIds) {
    if (id.trim().toLowerCase() !== bound) {
      throw new ApiError('forbidden', 'This key is limited to another workspace.', {
        variant: 'other_workspace_key',
        facts: { workspace: bound },
        details: { workspaceId: bound },
      });
    }
  }
  return bound;
}

/**
 * checkKeyConsent for every keyed route (called by requireApiKey once the key is verified): the route's config
 * and method say what it asks; a bound key has its workspace selected (the request's X-Workspace-Id is set to it,
 * so every route that resolves a workspace, from the header or the key's saved one, lands there).
 */
export function enforceKeyConsent(request: ConsentedRequest, principal: Principal): void {
  const config = request.routeOptions.config;
  const params = request.params as Record<string, unknown> | undefined;
  const header = request.headers[WORKSPACE_HEADER];
  const bound = checkKeyConsent(principal, {
    access: config.keyAccess ?? (READ_METHODS.has(request.method) ? 'read' : 'write'),
    narrowKeys: config.narrowKeys,
    workspaceBoundKeys: config.workspaceBoundKeys,
    workspaceIds: [params?.workspaceId, ...(Array.isArray(header) ? header : [header])].filter(
      (v): v is string => typeof v === 'string',
    ),
  });
  if (bound) request.headers[WORKSPACE_HEADER] = bound;
}
