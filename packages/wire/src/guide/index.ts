import { MCP_GUIDE } from './mcp.js';
import { RECIPES } from './recipes.js';
import { SQL_DIALECT } from './sql-dialect.js';
import { WRITING_DATA } from './writing-data.js';

/** The agent guide: short markdown an agent reads before writing SQL (MCP `get_guide`, later GET /v1/guide). */
export const GUIDE_TOPICS = ['sql-dialect', 'writing-data', 'recipes', 'mcp'] as const;
export type GuideTopic = (typeof GUIDE_TOPICS)[number];

const TEXTS: Record<GuideTopic, string> = {
  'sql-dialect': SQL_DIALECT,
  'writing-data': WRITING_DATA,
  recipes: RECIPES,
  mcp: MCP_GUIDE,
};

export function guide(topic: GuideTopic): string {
  return TEXTS[topic];
}

export const isGuideTopic = (topic: string): topic is GuideTopic =>
  (GUIDE_TOPICS as readonly string[]).includes(topic);
