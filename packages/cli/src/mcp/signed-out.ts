import { type McpApi, McpApiError, type McpImportApi } from '@expense/mcp';
import type { CliError } from '../errors.js';

/** What the client shows when `expense mcp` holds no key: the host passes on nothing written to stderr. */
export const SIGNED_OUT_HINT =
  'Ask the user to run `expense login` in a terminal (the key goes to the system keychain, or to a 0600 file where there is none), then restart the expense MCP server in this client. Or set EXPENSE_API_KEY in its env.';

/**
 * The MCP tools' API when no credential was found: every call fails with not_signed_in, so the server still
 * speaks the protocol and each tool answers an error the client shows (naming `expense login`), rather than
 * the process exiting before the handshake ("Connection closed" is all a client would see).
 */
export function signedOutApi(reason: CliError): Required<McpApi> & McpImportApi {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new McpApiError(401, {
        code: reason.code,
        message: reason.message,
        hint: SIGNED_OUT_HINT,
        retryable: false,
        ...(reason.hint ? { details: { cause: reason.hint } } : {}),
      }),
    );
  return {
    workspaces: refuse,
    invitations: refuse,
    schema: refuse,
    sql: refuse,
    changes: refuse,
    report: refuse,
    revertChange: refuse,
    importFile: refuse,
  };
}
