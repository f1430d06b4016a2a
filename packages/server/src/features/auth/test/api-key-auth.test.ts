import { codeOf, lastMailTo, removeDir, routePath, tempDir } from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from '../../../platform/http/test/helpers.js';

type OpenApi = { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };

// One mechanism attaches ApiKey auth: a route's declared OpenAPI security (features/auth/authenticate.ts, apiKeyAuth).
describe('ApiKey auth, attached one way (PGlite in memory)', () => {
  let app: FastifyInstance;
  let outbox: string;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    outbox = await tempDir();
    // A generous burst, so the daily quota is the tightest policy and its remaining count is the header's.
    app = await createServer({
      databaseUrl: 'memory://',
      mailOutbox: outbox,
      logLevel: 'silent',
      ratePerSecond: 1000,
      ratePerDay: 500,
    });
    const c = injectClient(app);
    const sent = await c.request('POST', routePath(AGENT_ROUTES.sendCode), {
      body: { email: 'auth@example.com' },
    });
    const verified = await c.request('POST', routePath(AGENT_ROUTES.verifyCode), {
      body: {
        code: codeOf(await lastMailTo(outbox, 'auth@example.com')),
        otpSessionToken: sent.body.data.otpSessionToken,
        label: 'k',
      },
    });
    key = verified.body.data.apiKey;
    const created = await c.request('POST', routePath(API_ROUTES.createWorkspace), {
      key,
      body: { name: 'auth' },
    });
    workspaceId = created.body.data.workspace.workspaceId;
  });
  afterAll(async () => {
    await app?.close();
    await removeDir(outbox);
  });

  it('asks for a key exactly on the routes whose OpenAPI security names ApiKey', async () => {
    // The OpenAPI document is served beside the table's routes, not as one of them: its path stays spelt.
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApi;
    const c = injectClient(app);
    let keyed = 0;
    let open = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      for (const [method, operation] of Object.entries(operations)) {
        const declared = (operation.security ?? []).some((s) => 'ApiKey' in s);
        const res = await c.request(method.toUpperCase(), url, {});
        if (declared) {
          keyed++;
          expect(res.status, `${method} ${path}`).toBe(401);
          expect(res.body.error.code, `${method} ${path}`).toBe('missing_api_key');
        } else {
          open++;
          expect(res.status, `${method} ${path}`).not.toBe(401);
        }
      }
    }
    // Every API route but discovery, docs, health and sign-in takes a key.
    expect(keyed).toBeGreaterThanOrEqual(19);
    expect(open).toBeGreaterThanOrEqual(6);
  });

  it('refuses an unknown key before reading the body', async () => {
    const res = await injectClient(app).request('POST', routePath(API_ROUTES.createWorkspace), {
      key: 'not-a-key',
      rawBody: '{"name":',
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it.each([
    { name: 'me', body: undefined },
    { name: 'workspaces', body: undefined },
    { name: 'schema', body: undefined },
    { name: 'sqlQuery', body: { sql: 'SELECT 1 AS one' } },
  ] as const)('spends one request of the key per $name (the key is checked once)', async ({ name, body }) => {
    const c = injectClient(app);
    const remaining = async () => {
      const route = API_ROUTES[name];
      const res = await c.request(route.method, routePath(route), {
        key,
        headers: { 'x-workspace-id': workspaceId },
        ...(body ? { body } : {}),
      });
      expect(res.status).toBe(200);
      const m = /^"daily";r=(\d+);/.exec(res.headers.ratelimit ?? '');
      expect(m, res.headers.ratelimit).not.toBeNull();
      return Number(m![1]);
    };
    const first = await remaining();
    expect(await remaining()).toBe(first - 1);
  });
});
