import { GUIDE_TOPICS, type GuideTopic, isGuideTopic } from '@expense/wire';
import { MCP_GUIDE } from './mcp.js';
import { RECIPES } from './recipes.js';
import { SQL_DIALECT } from './sql-dialect.js';
import { GUIDE_TRANSPORTS, type GuideTransport } from './transport.js';
import { WRITING_DATA } from './writing-data.js';

export { GUIDE_TOPICS, GUIDE_TRANSPORTS, type GuideTopic, type GuideTransport, isGuideTopic };

/**
 * The agent guide: short markdown an agent reads before writing SQL (MCP `get_guide` and resources, GET /v1/guide).
 * A topic is a text, or a function of the transport it is served over when the two differ (the write flow, the
 * names of the calls): no text served over one transport describes the other's flow.
 */
type GuideText = string | ((transport: GuideTransport) => string);

const TEXTS: Record<GuideTopic, GuideText> = {
  'sql-dialect': SQL_DIALECT,
  'writing-data': WRITING_DATA,
  recipes: RECIPES,
  mcp: MCP_GUIDE,
};

/** A topic as served over `transport` (MCP unless told). */
export function guide(topic: GuideTopic, transport: GuideTransport = 'mcp'): string {
  const text = TEXTS[topic];
  return typeof text === 'string' ? text : text(transport);
}
