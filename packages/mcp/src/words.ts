import { type ReceivedError, render } from '@expense/wire/error-catalog';

/**
 * MCP wording: an agent on MCP calls tools, never routes. An API error's texts are the error catalogue's MCP
 * texts of its situation (`render`: its code, variant and facts); nothing is rewritten here. Texts that are no
 * error's come as data too: the schema's rules in the catalogue's MCP words (`rulesFor`), an import's notes in the
 * API's words, which name no route.
 */

/** An API error's message and hint for an MCP tool result. */
export function mcpWords(error: ReceivedError): { message: string | undefined; hint: string | undefined } {
  return render(error, 'mcp');
}

/** The hint of an API error for an MCP tool result: the catalogue's MCP text of its situation. */
export function mcpHint(error: ReceivedError): string | undefined {
  return render(error, 'mcp').hint;
}
