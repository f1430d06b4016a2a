import { type McpApi, McpApiError, type PendingInvitation, type SqlResult } from '@expense/wire/mcp';
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

/** The MCP tools' API over the CLI's HTTP api layer (the same client, key and limits as every command). */
export function cliMcpApi(api: ExpenseApi): McpApi {
  let keyId: Promise<string> | undefined;
  return {
    keyId: () => {
      keyId ??= mapped(async () => (await api.me()).data.connection.connectionId);
      keyId.catch(() => {
        keyId = undefined;
      });
      return keyId;
    },
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
    revertChange: (changeId, call = {}) => mapped(async () => (await api.revertChange(changeId, call)).data),
    sql: (endpoint, sql, call = {}) =>
      mapped(async () => (await api.sql(endpoint, sql, call)).raw as SqlResult),
  };
}
