import {
  type Action,
  type ChangeRevertData,
  type ChangesData,
  HTTP_ERRORS,
  type SchemaData,
  type WorkspacesData,
} from '@expense/wire';
import {
  type Instructed,
  type McpApi,
  McpApiError,
  type PendingInvitation,
  type SqlResult,
} from '@expense/wire/mcp';
import type { FastifyInstance } from 'fastify';

interface Envelope {
  ok: boolean;
  data?: unknown;
  error?: {
    code: string;
    message: string;
    hint?: string;
    retryable?: boolean;
    details?: Record<string, unknown>;
  };
  actions?: Action[];
  instructions?: string[];
}

export interface InjectTarget {
  app: FastifyInstance;
  /** Where the API routes are mounted, e.g. `/v1` (with the app's prefix). */
  basePath: string;
  /** The caller's credentials, as the API routes take them. */
  authorization: string;
  /** The MCP request's client address, so per-address limits and logs see the real client. */
  remoteAddress: string;
}

/**
 * The MCP tools' API, served in-process by this server's own routes (`app.inject`) with the caller's key:
 * every tool call is an API call of that key — the same authentication, rate and in-flight limits, guard,
 * row-level security and request log as over HTTP.
 */
export function injectApi(t: InjectTarget): McpApi {
  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; workspaceId?: string; idempotencyKey?: string; instructed?: boolean } = {},
  ): Promise<T & Instructed> {
    const headers: Record<string, string> = { authorization: t.authorization, accept: 'application/json' };
    if (options.workspaceId) headers['x-workspace-id'] = options.workspaceId;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    const response = await t.app.inject({
      method,
      url: `${t.basePath}${path}`,
      headers,
      remoteAddress: t.remoteAddress,
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
    let envelope: Envelope;
    try {
      envelope = response.json() as Envelope;
    } catch {
      throw new McpApiError(response.statusCode, {
        code: 'internal_error',
        message: 'The API answered without its envelope.',
        hint: HTTP_ERRORS.internal_error.hint,
        retryable: HTTP_ERRORS.internal_error.retryable,
      });
    }
    if (!envelope.ok || response.statusCode >= 400) {
      throw new McpApiError(
        response.statusCode,
        envelope.error ?? { code: 'internal_error', message: 'The API failed.' },
        envelope.actions ?? [],
      );
    }
    const data = envelope.data as T & Instructed;
    if (!options.instructed) return data;
    // SQL and revert answers: the notes an agent must relay travel in the instructions (stale rates ...).
    return {
      ...data,
      ...(envelope.instructions?.length ? { instructions: envelope.instructions } : {}),
      ...(response.headers['idempotent-replayed'] === 'true' ? { replayed: true } : {}),
    };
  }

  return {
    workspaces: () => call<WorkspacesData>('GET', '/workspaces'),
    invitations: async () => {
      try {
        return (await call<{ invitations: PendingInvitation[] }>('GET', '/invitations')).invitations;
      } catch (error) {
        // Before membership consent the server has no such route; a narrow key may not list them (403).
        if (error instanceof McpApiError && (error.status === 404 || error.status === 403)) return [];
        throw error;
      }
    },
    schema: (workspaceId) => call<SchemaData>('GET', '/schema', workspaceId ? { workspaceId } : {}),
    changes: (c = {}) =>
      call<ChangesData>(
        'GET',
        `/changes${c.limit ? `?limit=${c.limit}` : ''}`,
        c.workspaceId ? { workspaceId: c.workspaceId } : {},
      ),
    revertChange: (changeId, c = {}) =>
      call<ChangeRevertData>('POST', `/changes/${encodeURIComponent(changeId)}/revert`, {
        body: c.dryRun ? { dryRun: true } : c.confirmToken ? { confirmToken: c.confirmToken } : {},
        ...(c.workspaceId ? { workspaceId: c.workspaceId } : {}),
        ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
        instructed: true,
      }),
    sql: (endpoint, sql, c = {}) =>
      call<SqlResult>('POST', endpoint, {
        body:
          endpoint === '/sql/query'
            ? { sql }
            : {
                sql,
                ...(c.dryRun ? { dryRun: true } : {}),
                ...(c.confirmToken ? { confirmToken: c.confirmToken } : {}),
              },
        ...(c.workspaceId ? { workspaceId: c.workspaceId } : {}),
        ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
        instructed: true,
      }),
  };
}
