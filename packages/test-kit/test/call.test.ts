// call and routePath: a route of the table becomes its method and its full path, sent over a real socket to a
// server that answers with what it was sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, prefixOf, routePath } from '../src/call.js';
import { type Client, socketClient } from '../src/http.js';

let server: Server;
let client: Client;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          authorization: req.headers.authorization ?? null,
          body: body ? JSON.parse(body) : null,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = socketClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('routePath', () => {
  it('puts the API routes under /v1 and the sign-in routes under /api/agent', () => {
    expect(prefixOf(API_ROUTES.me)).toBe('/v1');
    expect(prefixOf(AGENT_ROUTES.verifyCode)).toBe('/api/agent');
    expect(routePath(API_ROUTES.discovery)).toBe('/v1/');
    expect(routePath(AGENT_ROUTES.sendCode)).toBe('/api/agent/send-code');
  });

  it('fills and encodes the parameters and appends the defined query values', () => {
    expect(routePath(API_ROUTES.removeMember, { workspaceId: 'w 1', userId: 'u/2' })).toBe(
      '/v1/workspaces/w%201/members/u%2F2',
    );
    expect(routePath(API_ROUTES.changes, {}, { limit: 5, before: undefined })).toBe('/v1/changes?limit=5');
  });
});

describe('call', () => {
  it('sends the route’s method to its path with the key and the JSON body', async () => {
    const res = await call(client, API_ROUTES.revertChange, {
      params: { changeId: 'chg_1' },
      key: 'exp_live_x',
      body: { dryRun: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      method: 'POST',
      url: '/v1/changes/chg_1/revert',
      authorization: 'ApiKey exp_live_x',
      body: { dryRun: true },
    });
  });

  it('takes no request for a route without parameters', async () => {
    expect((await call(client, API_ROUTES.health)).body).toMatchObject({ method: 'GET', url: '/v1/healthz' });
    expect(
      (await call(client, API_ROUTES.report, { params: { kind: 'monthly' }, query: { year: 2026 } })).body,
    ).toMatchObject({ method: 'GET', url: '/v1/reports/monthly?year=2026' });
  });
});
