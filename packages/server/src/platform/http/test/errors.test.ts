import SwaggerParser from '@apidevtools/swagger-parser';
import { call, codeOf, lastMailTo, removeDir, routePath, tempDir } from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES, FailureEnvelopeSchema } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { injectClient } from './helpers.js';

describe('errors and the OpenAPI document (PGlite in memory)', () => {
  let app: FastifyInstance;
  let outbox: string;
  let key: string;

  beforeAll(async () => {
    outbox = await tempDir();
    app = await createServer({ databaseUrl: 'memory://', mailOutbox: outbox, logLevel: 'silent' });
    const c = injectClient(app);
    const sent = await c.request('POST', routePath(AGENT_ROUTES.sendCode), {
      body: { email: 'err@example.com' },
    });
    const verified = await c.request('POST', routePath(AGENT_ROUTES.verifyCode), {
      body: {
        code: codeOf(await lastMailTo(outbox, 'err@example.com')),
        otpSessionToken: sent.body.data.otpSessionToken,
        label: 'k',
      },
    });
    key = verified.body.data.apiKey;
  });
  afterAll(async () => {
    await app?.close();
    await removeDir(outbox);
  });

  const cases: {
    name: string;
    method: string;
    path: string;
    status: number;
    code: string;
    body?: unknown;
    raw?: string;
    type?: string;
    auth?: string | null;
  }[] = [
    // The unknown path and the malformed percent-encoding below are what those cases test: they stay spelt.
    { name: 'unknown route', method: 'GET', path: '/v1/nothing', status: 404, code: 'not_found' },
    {
      name: 'wrong method',
      method: 'PUT',
      path: routePath(API_ROUTES.workspaces),
      status: 405,
      code: 'method_not_allowed',
    },
    {
      name: 'malformed JSON',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 400,
      code: 'invalid_request',
      raw: '{"name":',
    },
    {
      name: 'not JSON',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 415,
      code: 'unsupported_media_type',
      raw: 'name=x',
      type: 'text/plain',
    },
    {
      name: 'over 1 MiB',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 413,
      code: 'payload_too_large',
      raw: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
    },
    {
      name: 'missing field',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 400,
      code: 'invalid_request',
      body: {},
    },
    {
      name: 'blank name',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 400,
      code: 'invalid_workspace_name',
      body: { name: '   ' },
    },
    {
      name: 'long name',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 400,
      code: 'invalid_workspace_name',
      body: { name: 'x'.repeat(101) },
    },
    {
      name: 'bad e-mail',
      method: 'POST',
      path: routePath(AGENT_ROUTES.sendCode),
      status: 400,
      code: 'invalid_email',
      body: { email: 'nope' },
      auth: null,
    },
    {
      name: 'blank label',
      method: 'POST',
      path: routePath(AGENT_ROUTES.verifyCode),
      status: 400,
      code: 'invalid_label',
      body: { code: '12345678', otpSessionToken: 't', label: ' ' },
      auth: null,
    },
    {
      name: 'unknown session',
      method: 'POST',
      path: routePath(AGENT_ROUTES.verifyCode),
      status: 400,
      code: 'invalid_otp_session',
      body: { code: '12345678', otpSessionToken: 't', label: 'x' },
      auth: null,
    },
    {
      name: 'no key',
      method: 'GET',
      path: routePath(API_ROUTES.me),
      status: 401,
      code: 'missing_api_key',
      auth: null,
    },
    {
      name: 'malformed key',
      method: 'GET',
      path: routePath(API_ROUTES.me),
      status: 401,
      code: 'invalid_api_key',
      auth: 'ApiKey nope',
    },
    {
      name: 'unknown key',
      method: 'GET',
      path: routePath(API_ROUTES.me),
      status: 401,
      code: 'invalid_api_key',
      auth: `ApiKey exp_live_${'A'.repeat(43)}`,
    },
    {
      name: 'wrong scheme',
      method: 'GET',
      path: routePath(API_ROUTES.me),
      status: 401,
      code: 'invalid_api_key',
      auth: 'Bearer x',
    },
    {
      // The key is checked before the body is parsed or validated: without one, a bad body is still a 401.
      name: 'no key and malformed JSON',
      method: 'POST',
      path: routePath(API_ROUTES.sqlQuery),
      status: 401,
      code: 'missing_api_key',
      raw: '{"sql": ',
      auth: null,
    },
    {
      name: 'an unknown key and a body of the wrong shape',
      method: 'POST',
      path: routePath(API_ROUTES.createWorkspace),
      status: 401,
      code: 'invalid_api_key',
      body: { name: 5 },
      auth: `ApiKey exp_live_${'B'.repeat(43)}`,
    },
    {
      name: 'a valid key and malformed JSON',
      method: 'POST',
      path: routePath(API_ROUTES.sqlQuery),
      status: 400,
      code: 'invalid_request',
      raw: '{"sql": ',
    },
    {
      name: 'foreign workspace',
      method: 'GET',
      path: routePath(API_ROUTES.members, { workspaceId: '00000000-0000-4000-8000-000000000000' }),
      status: 404,
      code: 'workspace_not_found',
    },
    {
      name: 'bad percent-encoding in the URL',
      method: 'GET',
      path: '/v1/workspaces/%E0%A4%A/members',
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'an over-long path parameter',
      method: 'POST',
      path: routePath(API_ROUTES.selectWorkspace, { workspaceId: 'w'.repeat(5000) }),
      status: 404,
      code: 'not_found',
    },
  ];

  for (const t of cases) {
    it(`answers ${t.name} with ${t.status} ${t.code} in the failure envelope`, async () => {
      const headers: Record<string, string> = {};
      if (t.auth === undefined) headers.authorization = `ApiKey ${key}`;
      else if (t.auth !== null) headers.authorization = t.auth;
      let payload: string | undefined = t.raw;
      if (t.body !== undefined) payload = JSON.stringify(t.body);
      if (payload !== undefined) headers['content-type'] = t.type ?? 'application/json';
      const res = await app.inject({
        method: t.method as 'GET',
        url: t.path,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      expect(res.statusCode).toBe(t.status);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      const body = res.json();
      expect(FailureEnvelopeSchema.parse(body).error.code).toBe(t.code);
      expect(body.error.hint.length).toBeGreaterThan(0);
      expect(res.body).not.toMatch(/\bat .*\.(ts|js):\d+/);
      if (t.status === 405) expect(res.headers.allow).toContain('POST');
      if (t.status === 401) expect(body.actions.map((a: { name: string }) => a.name)).toContain('send_code');
    });
  }

  it('answers bytes that are not HTTP with the envelope on the socket, echoing nothing', async () => {
    const { createConnection } = await import('node:net');
    const server = await createServer({ databaseUrl: 'memory://', logLevel: 'silent', port: 0 });
    try {
      await server.listen({ host: '127.0.0.1', port: 0 });
      const { port } = server.server.address() as { port: number };
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = createConnection({ host: '127.0.0.1', port }, () => {
          socket.write(
            `GET ${routePath(API_ROUTES.discovery)} HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n`,
          );
        });
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk.toString();
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      const [head, body] = reply.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/x-request-id: req_/i);
      expect(FailureEnvelopeSchema.parse(JSON.parse(body ?? '')).error.code).toBe('invalid_request');
    } finally {
      await server.close();
    }
  });

  it('reports validation details', async () => {
    const res = await injectClient(app).request('POST', routePath(API_ROUTES.createWorkspace), {
      key,
      body: { name: 5 },
    });
    expect(res.body.error.details.issues[0].path).toBe('body.name');
  });

  it('serves a valid OpenAPI 3.1 document of every route, at both addresses', async () => {
    const c = injectClient(app);
    // The OpenAPI document's own addresses and its keys are what this test checks: they stay spelt.
    const doc = (await c.request('GET', '/v1/openapi.json')).body;
    expect((await c.request('GET', '/v1/swagger.json')).body).toEqual(doc);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('v1');
    for (const path of [
      '/v1/me',
      '/v1/workspaces',
      '/v1/workspaces/{workspaceId}/select',
      '/v1/keys/{connectionId}',
      '/v1/workspaces/{workspaceId}/members/{userId}',
      '/v1/invitations',
      '/v1/invitations/{workspaceId}/accept',
      '/v1/invitations/{workspaceId}',
      '/v1/schema',
      '/api/agent/send-code',
      '/api/agent/verify-code',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(
      doc.paths['/api/agent/send-code'].post.requestBody.content['application/json'].schema.properties.email,
    ).toBeDefined();
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('serves the README the discovery points to', async () => {
    const c = injectClient(app);
    const readmeUrl: string = (await call(c, API_ROUTES.discovery)).body.data.docs.readmeUrl;
    const res = await c.request('GET', new URL(readmeUrl).pathname);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/markdown');
  });

  it('answers health and readiness', async () => {
    const c = injectClient(app);
    expect((await call(c, API_ROUTES.health)).body.data.status).toBe('ok');
    expect((await call(c, API_ROUTES.ready)).body.data).toEqual({ status: 'ok', database: 'ok' });
  });
});
