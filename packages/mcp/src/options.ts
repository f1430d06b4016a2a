import type { McpApi } from './api.js';

/** How a server instance's tools are set up: the API they call and what they may do. */
export interface ToolOptions {
  api: McpApi;
  /** Hide and refuse the writing tools. */
  readOnly?: boolean;
  /** Only this workspace may be used (its id). */
  pinnedWorkspaceId?: string;
  /** The protocol era of this instance: 2025-era ('legacy') or 2026-07-28 ('modern'). */
  era?: 'legacy' | 'modern';
  /**
   * Whether a 2025-era server→client elicitation request can reach the client: yes on stdio; no on stateless
   * HTTP, where the client's answer would arrive at another instance.
   */
  pushElicitation?: boolean;
}
