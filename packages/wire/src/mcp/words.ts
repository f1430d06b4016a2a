import { mcpHintOf } from '../error-catalog.js';

/**
 * HTTP routes as the MCP tools that do the same, for hints and messages built at a throw site (the guard's, the
 * SQL route's) that name routes: an agent on MCP calls tools, never routes. Longest phrases first.
 */
const ROUTE_WORDS: readonly (readonly [RegExp, string])[] = [
  [/\/sql \(script mode\)/g, 'execute (it runs several statements atomically)'],
  [/\bPOST \/(?:v1\/)?sql\/query\b/g, 'the query tool'],
  [/\bPOST \/(?:v1\/)?sql\/execute\b/g, 'the execute tool'],
  [/\/sql\/query\b/g, 'the query tool'],
  [/\/sql\/execute\b/g, 'the execute tool'],
  [/\bGET \/(?:v1\/)?schema\b/g, 'get_schema'],
  [/\bGET \/(?:v1\/)?changes(?:\/\{changeId\})?/g, 'history'],
  [/\bPOST \/(?:v1\/)?changes\/\S+\/revert\b/g, 'revert'],
  [/\bGET \/(?:v1\/)?workspaces\b/g, 'list_workspaces'],
  [/\bPOST \/(?:v1\/)?workspaces\/\{workspaceId\}\/select\b/g, 'the workspaceId argument'],
  [/\bthe X-Workspace-Id header\b/g, 'the workspaceId argument'],
  [/\bGET \/(?:v1\/)?guide\b/g, 'get_guide'],
];

/** A text with the HTTP routes it names replaced by the MCP tools that do the same. */
export function inToolWords(text: string): string {
  let out = text;
  for (const [route, tool] of ROUTE_WORDS) out = out.replace(route, tool);
  return out;
}

/** The hint of an API error for an MCP tool result: the catalogue's MCP variant, else the hint in tool words. */
export function mcpHint(error: { code: string; hint?: string | undefined }): string | undefined {
  return mcpHintOf(error) ?? (error.hint === undefined ? undefined : inToolWords(error.hint));
}
