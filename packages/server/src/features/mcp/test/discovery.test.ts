// GET /v1/ and GET / are both what discovery answers on, and the OpenAPI document and the guide are served outside the
// route table: the URLs are spelt.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';

// An agent that reads discovery or the OpenAPI document finds /mcp and how to authenticate in one call.
describe('MCP is discoverable: discovery, OpenAPI and the guide name /mcp and its auth', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServer({
      databaseUrl: 'memory://',
      logLevel: 'silent',
      publicUrl: 'https://expense.example',
    });
  });
  afterAll(async () => app?.close());

  it('discovery (GET /v1/ and GET /) has data.mcp and a connect_mcp action', async () => {
    for (const url of ['/v1/', '/']) {
      const body = (await app.inject({ method: 'GET', url })).json();
      expect(body.data.mcp).toEqual({
        url: 'https://expense.example/mcp',
        auth: ['ApiKey', 'Bearer (OAuth 2.1)'],
        resourceMetadataUrl: 'https://expense.example/.well-known/oauth-protected-resource/mcp',
      });
      expect(body.actions).toContainEqual({
        name: 'connect_mcp',
        method: 'POST',
        url: 'https://expense.example/mcp',
        auth: 'ApiKey',
      });
      expect(body.instructions.join(' ')).toMatch(/mcp\.url/);
    }
  });

  it('the OpenAPI document describes POST /mcp and its Bearer scheme', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/mcp'].post.security).toEqual([{ Bearer: [] }, { ApiKey: [] }]);
    expect(doc.paths['/mcp'].post.responses['401'].description).toMatch(/WWW-Authenticate/);
    expect(doc.components.securitySchemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.ApiKey).toBeDefined();
  });

  it('the guide has an MCP topic', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/guide/mcp' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^# MCP/);
    expect(res.body).toContain('expense mcp');
    // Served over HTTP, it does not describe the tools' confirmToken flow (get_guide does, over MCP).
    expect(res.body).not.toContain('confirmToken');
  });
});
