import {
  type Instructed,
  importQuery,
  type McpApi,
  McpApiError,
  type McpImportApi,
  type PendingInvitation,
  type SqlResult,
} from '@expense/mcp';
import type { ExpenseApi } from '../api/index.js';
import { CliError } from '../errors.js';
import { ApiError } from '../http/api-error.js';

/** Runs a call of the CLI's api layer, turning its errors into the MCP layer's (the API's error object unchanged). */
async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError) {
      throw new McpApiError(error.status, error.error, error.actions);
    }
    if (error instanceof CliError) {
      throw new McpApiError(502, {
        code: error.code,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
        retryable: error.code === 'network_error',
      });
    }
    throw error;
  }
}

/** An answer's data with its instructions (the notes an agent must relay travel there). */
function instructed<T>(r: {
  data: T;
  raw: unknown;
  instructions: string[];
  replayed: boolean;
}): T & Instructed {
  const data = r.raw as T & Instructed; // exactly as the server sent it
  return {
    ...data,
    ...(r.instructions.length ? { instructions: r.instructions } : {}),
    ...(r.replayed ? { replayed: true } : {}),
  };
}

/** The MCP tools' API over the CLI's HTTP api layer (the same client, key and limits as every command). */
export function cliMcpApi(api: ExpenseApi): McpApi & McpImportApi {
  return {
    workspaces: () => mapped(async () => (await api.workspaces()).data),
    invitations: () =>
      mapped(async (): Promise<PendingInvitation[]> => {
        try {
          return (await api.invitations()).data.invitations;
        } catch (error) {
          // A server without invitations (before membership consent) has no such route.
          if (error instanceof ApiError && error.status === 404) return [];
          throw error;
        }
      }),
    schema: (workspaceId) => mapped(async () => (await api.schema(workspaceId)).data),
    changes: (call = {}) => mapped(async () => (await api.changes(call)).data),
    report: (input, call = {}) => mapped(async () => instructed(await api.report(input, call.workspaceId))),
    revertChange: (changeId, call = {}) =>
      mapped(async () => instructed(await api.revertChange(changeId, call))),
    importFile: (file, call = {}) =>
      mapped(async () =>
        instructed(
          await api.importFile(file, importQuery(call), {
            workspaceId: call.workspaceId,
            idempotencyKey: call.idempotencyKey,
          }),
        ),
      ),
    sql: (endpoint, sql, call = {}) =>
      mapped(async () => instructed(await api.sql(endpoint, sql, call)) as SqlResult),
  };
}
