import {
  type Instructed,
  importQuery,
  type McpApi,
  McpApiError,
  type McpImportApi,
  type PendingInvitation,
} from '@expense/mcp';
import {
  type Action,
  API_ROUTES,
  type ChangeRevertData,
  type ChangesData,
  HTTP_ERRORS,
  type HttpMethod,
  type ImportData,
  requestOf,
  type SchemaData,
  type WorkspacesData,
} from '@expense/wire';
import type { ReportData } from '@expense/wire/reports';
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
 * An API answer (status and envelope text) as a tool sees it: the data, or McpApiError with the envelope's
 * error and actions. `instructed`: SQL and revert answers carry the instructions an agent must relay (stale
 * rates ...) and whether the answer was a replay.
 */
export function answerOf<T>(
  statusCode: number,
  text: string,
  replayed: boolean,
  instructed: boolean,
): T & Instructed {
  let envelope: Envelope;
  try {
    envelope = JSON.parse(text) as Envelope;
  } catch {
    throw new McpApiError(statusCode, {
      code: 'internal_error',
      message: 'The API answered without its envelope.',
      hint: HTTP_ERRORS.internal_error.hint,
      retryable: HTTP_ERRORS.internal_error.retryable,
    });
  }
  if (!envelope.ok || statusCode >= 400) {
    throw new McpApiError(
      statusCode,
      envelope.error ?? { code: 'internal_error', message: 'The API failed.' },
      envelope.actions ?? [],
    );
  }
  const data = envelope.data as T & Instructed;
  if (!instructed) return data;
  return {
    ...data,
    ...(envelope.instructions?.length ? { instructions: envelope.instructions } : {}),
    ...(replayed ? { replayed: true } : {}),
  };
}

/**
 * The MCP tools' API but SQL (sql-api.ts), served in-process by this server's own routes (`app.inject`) with the
 * caller's key: every tool call is an API call of that key — the same authentication, rate and in-flight limits,
 * guard, row-level security and request log as over HTTP.
 */
export function injectApi(t: InjectTarget): Required<Omit<McpApi, 'sql'>> & McpImportApi {
  async function call<T>(
    { method, path }: { method: HttpMethod; path: string },
    options: {
      body?: unknown;
      /** A body of bytes as they are (an import's file), instead of JSON. */
      bytes?: Uint8Array;
      workspaceId?: string;
      idempotencyKey?: string;
      instructed?: boolean;
    } = {},
  ): Promise<T & Instructed> {
    const headers: Record<string, string> = { authorization: t.authorization, accept: 'application/json' };
    if (options.workspaceId) headers['x-workspace-id'] = options.workspaceId;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    if (options.bytes) headers['content-type'] = 'application/octet-stream';
    const response = await t.app.inject({
      method,
      url: `${t.basePath}${path}`,
      headers,
      remoteAddress: t.remoteAddress,
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
      ...(options.bytes ? { payload: Buffer.from(options.bytes) } : {}),
    });
    return answerOf<T>(
      response.statusCode,
      response.body,
      response.headers['idempotent-replayed'] === 'true',
      options.instructed === true,
    );
  }

  return {
    workspaces: () => call<WorkspacesData>(requestOf(API_ROUTES.workspaces)),
    invitations: async () => {
      try {
        return (await call<{ invitations: PendingInvitation[] }>(requestOf(API_ROUTES.invitations)))
          .invitations;
      } catch (error) {
        // Before membership consent the server has no such route; a narrow key may not list them (403).
        if (error instanceof McpApiError && (error.status === 404 || error.status === 403)) return [];
        throw error;
      }
    },
    schema: (workspaceId) =>
      call<SchemaData>(requestOf(API_ROUTES.schema), workspaceId ? { workspaceId } : {}),
    changes: (c = {}) =>
      call<ChangesData>(
        requestOf(API_ROUTES.changes, {}, { limit: c.limit || undefined }),
        c.workspaceId ? { workspaceId: c.workspaceId } : {},
      ),
    report: ({ kind, ...range }, c = {}) => {
      const query = Object.fromEntries(Object.entries(range).filter((e) => typeof e[1] === 'string'));
      return call<ReportData>(requestOf(API_ROUTES.report, { kind }, query), {
        ...(c.workspaceId ? { workspaceId: c.workspaceId } : {}),
        instructed: true,
      });
    },
    revertChange: (changeId, c = {}) =>
      call<ChangeRevertData>(requestOf(API_ROUTES.revertChange, { changeId }), {
        body: c.dryRun ? { dryRun: true } : c.confirmToken ? { confirmToken: c.confirmToken } : {},
        ...(c.workspaceId ? { workspaceId: c.workspaceId } : {}),
        ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
        instructed: true,
      }),
    importFile: (file, c = {}) =>
      call<ImportData>(requestOf(API_ROUTES.importFile, {}, importQuery(c)), {
        bytes: file,
        ...(c.workspaceId ? { workspaceId: c.workspaceId } : {}),
        ...(c.idempotencyKey ? { idempotencyKey: c.idempotencyKey } : {}),
        instructed: true,
      }),
  };
}
