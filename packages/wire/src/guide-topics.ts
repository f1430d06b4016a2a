/**
 * The topics of the agent guide, as GET /v1/guide/{topic} and the MCP `get_guide` tool name them. Their texts live
 * with the MCP server (@expense/mcp's guide), which both transports serve.
 */
export const GUIDE_TOPICS = ['sql-dialect', 'writing-data', 'recipes', 'mcp'] as const;
export type GuideTopic = (typeof GUIDE_TOPICS)[number];

export const isGuideTopic = (topic: string): topic is GuideTopic =>
  (GUIDE_TOPICS as readonly string[]).includes(topic);
