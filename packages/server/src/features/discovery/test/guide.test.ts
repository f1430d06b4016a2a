// The guide's pages (/v1/guide, /v1/guide/{topic}) are served outside the route table, so their paths are spelt.
import { GUIDE_TOPICS, guide } from '@expense/mcp/guide';
import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';

describe('GET /v1/guide: the agent guide, linked from discovery', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServer({ databaseUrl: 'memory://', logLevel: 'silent' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is linked from discovery and serves every topic as Markdown, without a key', async () => {
    const discovery = (await app.inject({ method: 'GET', url: routePath(API_ROUTES.discovery) })).json();
    const url = new URL(discovery.data.docs.guideUrl);
    expect(url.pathname).toBe('/v1/guide');
    const res = await app.inject({ method: 'GET', url: url.pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    for (const topic of GUIDE_TOPICS.filter((t) => t !== 'mcp'))
      expect(res.body).toContain(guide(topic, 'http').trim());
    // The MCP topic (the other transport's flow) is served on its own, never inside the HTTP guide.
    expect(res.body).not.toContain(guide('mcp', 'http').trim());
    const mcp = await app.inject({ method: 'GET', url: '/v1/guide/mcp' });
    expect(mcp.statusCode).toBe(200);
    expect(mcp.body).toContain('expense mcp');
  });

  it('serves one topic, and names the topics when asked for another', async () => {
    const one = await app.inject({ method: 'GET', url: '/v1/guide/recipes' });
    expect(one.statusCode).toBe(200);
    expect(one.body).toBe(guide('recipes', 'http'));
    const unknown = await app.inject({ method: 'GET', url: '/v1/guide/pricing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({ code: 'not_found' });
    expect(unknown.json().error.hint).toContain(GUIDE_TOPICS.join(', '));
  });

  it('describes one write flow per transport: HTTP dryRun and Idempotency-Key, MCP confirmToken', async () => {
    const http = (await app.inject({ method: 'GET', url: '/v1/guide' })).body;
    expect(http).toContain('"dryRun": true');
    expect(http).toContain('Idempotency-Key');
    expect(http).toContain('COMMITS AT ONCE');
    expect(http).not.toMatch(/confirmToken|get_schema|the `report` tool|`execute` without/);
    // No topic served over HTTP, the MCP one included, describes MCP's dry run -> confirmToken flow.
    for (const topic of GUIDE_TOPICS) {
      const served = (await app.inject({ method: 'GET', url: `/v1/guide/${topic}` })).body;
      expect(served, topic).not.toMatch(/confirmToken|`execute` without|dry-?runs/i);
    }
    const mcp = GUIDE_TOPICS.map((topic) => guide(topic, 'mcp')).join('\n');
    expect(mcp).toContain('confirmToken');
    expect(mcp).not.toMatch(/dryRun|Idempotency-Key` header|POST \/sql|GET \/schema|GET \/reports/);
    expect(guide('mcp', 'mcp')).toMatch(/`execute` \(or `revert`\) without `confirmToken` dry-runs/);
    for (const text of [http, mcp]) expect(text).toContain("SQL runs in the workspace's time zone");
  });
});
