/**
 * The error codes the MCP tools add to the API's (http-api.md): they arise in the MCP layer itself, before any
 * API call. A tool error carries either one of these or the API's own error object unchanged.
 */
export const MCP_ERROR_CODES = {
  confirmation_mismatch: 'The confirmToken was issued for other SQL or another workspace.',
  confirmation_expired: 'The confirmToken is older than 10 minutes.',
  confirmation_invalid: 'The confirmToken is malformed, forged, or from another key or server.',
  confirmation_used: 'The confirmToken was already used.',
  confirmation_declined: 'The user declined the change when asked.',
  workspace_pinned: 'The server is pinned to one workspace.',
  invalid_report: 'The report input is out of range.',
} as const;
export type McpErrorCode = keyof typeof MCP_ERROR_CODES;
