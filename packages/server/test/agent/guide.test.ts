import { GUIDE_TOPICS, guide } from '@expense/wire/guide';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';

describe('GET /v1/guide: the agent guide, linked from discovery', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServer({ databaseUrl: 'memory://', logLevel: 'silent' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is linked from discovery and serves every topic as Markdown, without a key', async () => {
    const discovery = (await app.inject({ method: 'GET', url: '/v1/' })).json();
    const url = new URL(discovery.data.docs.guideUrl);
    expect(url.pathname).toBe('/v1/guide');
    const res = await app.inject({ method: 'GET', url: url.pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    for (const topic of GUIDE_TOPICS) expect(res.body).toContain(guide(topic).trim());
  });

  it('serves one topic, and names the topics when asked for another', async () => {
    const one = await app.inject({ method: 'GET', url: '/v1/guide/recipes' });
    expect(one.statusCode).toBe(200);
    expect(one.body).toBe(guide('recipes'));
    const unknown = await app.inject({ method: 'GET', url: '/v1/guide/pricing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({ code: 'not_found' });
    expect(unknown.json().error.hint).toContain(GUIDE_TOPICS.join(', '));
  });
});
