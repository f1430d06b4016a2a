import { isErrorCode, resolveError } from './codes.js';
import { GUARD_ERROR } from './guard.js';
import { HTTP_ERRORS } from './http.js';

/**
 * The codes the MCP tools add (`mcp.md`): they arise in the MCP layer itself, before any API call, and have no
 * HTTP status. A tool error carries either one of these or the API's own error object unchanged.
 */
export const MCP_ERRORS = {
  confirmation_declined: { message: 'The user declined the change when asked.' },
  workspace_pinned: { message: 'The server is pinned to one workspace.' },
  invalid_report: { message: 'The report input is out of range.' },
  confirmation_required: { message: 'An import commits only with the confirmToken of its dry run.' },
} as const satisfies Record<string, { message: string; hint?: string }>;
export type McpErrorCode = keyof typeof MCP_ERRORS;

/**
 * The import tool's hint for a refusal whose reader named options only `expense import` has (a column mapping,
 * a preset, a delimiter, lines to skip): the tool takes none of them, but it reads a header of the ledger's names.
 * The MCP words of the situation `invalid_request` `import_layout`.
 */
export const MCP_IMPORT_LAYOUT_HINT: string = HTTP_ERRORS.invalid_request.variants.import_layout.mcpHint;

/** The next step an MCP tool result names after an API error (code, status and retryability as answered). */
export function mcpNextStep(
  error: { code: string; retryable?: boolean | undefined },
  status: number,
  variant?: string,
): string {
  const known = isErrorCode(error.code) ? resolveError(error.code, variant).mcpNext : undefined;
  if (known) return known;
  if (error.retryable) return HTTP_ERRORS.rate_limited.mcpNext;
  if (status === 400) return GUARD_ERROR.mcpNext;
  return 'Report the error to the user.';
}
