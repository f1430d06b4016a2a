import { inAudienceWords, type ReceivedError, render } from '@expense/wire/error-catalog';

/**
 * MCP wording: an agent on MCP calls tools, never routes. An API error's texts are the error catalogue's MCP
 * texts of its situation (`render`: its code, variant and facts); nothing is rewritten here.
 */

/**
 * A text that is no error's (an import's notes, the schema's rules), in MCP words: the catalogue's phrases for
 * the routes it names.
 */
export function inToolWords(text: string): string {
  return inAudienceWords(text, 'mcp');
}

/** An API error's message and hint for an MCP tool result. */
export function mcpWords(error: ReceivedError): { message: string | undefined; hint: string | undefined } {
  return render(error, 'mcp');
}

/** The hint of an API error for an MCP tool result: the catalogue's MCP text of its situation. */
export function mcpHint(error: ReceivedError): string | undefined {
  return render(error, 'mcp').hint;
}
