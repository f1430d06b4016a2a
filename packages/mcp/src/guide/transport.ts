/**
 * The guide is served over two transports with different write flows: HTTP (dryRun, then the same request
 * committed with an Idempotency-Key) and MCP (a dry run that returns a confirmToken). Each topic is rendered for
 * one of them, and never describes the other's flow.
 */
export const GUIDE_TRANSPORTS = ['http', 'mcp'] as const;
export type GuideTransport = (typeof GUIDE_TRANSPORTS)[number];

/** The names an agent calls on each transport. */
export interface Calls {
  schema: string;
  query: string;
  execute: string;
  script: string;
  report: string;
  history: string;
  revert: string;
}

export const CALLS: Record<GuideTransport, Calls> = {
  http: {
    schema: '`GET /schema`',
    query: '`POST /sql/query`',
    execute: '`POST /sql/execute`',
    script: '`POST /sql`',
    report: '`GET /reports/{kind}`',
    history: '`GET /changes`',
    revert: '`POST /changes/{changeId}/revert`',
  },
  mcp: {
    schema: '`get_schema`',
    query: '`query`',
    execute: '`execute`',
    script: '`execute`',
    report: 'the `report` tool',
    history: '`history`',
    revert: '`revert`',
  },
};
