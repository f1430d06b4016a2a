import { hintFor, inAudienceWords } from '@expense/wire/error-catalog';

/**
 * MCP wording of API errors: an agent on MCP calls tools, never routes. Both texts come from the error catalogue
 * (its `mcpHint`s, and its phrases for texts built at a throw site); nothing is rewritten here.
 */

/** A text built at a throw site (a guard refusal's message) in MCP words. */
export function inToolWords(text: string): string {
  return inAudienceWords(text, 'mcp');
}

/** The hint of an API error for an MCP tool result: the catalogue's MCP text of its situation. */
export function mcpHint(error: { code: string; hint?: string | undefined }): string | undefined {
  return hintFor(error, 'mcp');
}
