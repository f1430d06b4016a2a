// The console serves what its pages load (scripts, their source maps, styles), not what sits beside them in
// console/: the type check's tsconfig.json and .d.ts files.
import { PGLITE } from '@expense/test-kit';
import { API_PREFIX, ROUTE_PATHS } from '@expense/wire/route-paths';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';

describe('console assets', () => {
  let db: Database;
  let app: FastifyInstance;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: (await PGLITE.open()).url });
    app = await createServer({ logLevel: 'silent' }, { database: db });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  const get = async (path: string) =>
    (await app.inject({ method: 'GET', url: `/console/assets/${path}` })).statusCode;

  it('serves the scripts and styles the pages load', async () => {
    for (const path of ['app.js', 'pages/import.js', 'console.css']) expect(await get(path), path).toBe(200);
  });

  it('serves the route table the pages call routes by name from: the wire’s, as an ES module', async () => {
    const answer = await app.inject({ method: 'GET', url: '/console/assets/routes.js' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/javascript/);
    // The CSP and the other page headers of every console route.
    expect(answer.headers['content-security-policy']).toBeDefined();
    const served = await import(`data:text/javascript;base64,${Buffer.from(answer.body).toString('base64')}`);
    expect(served.ROUTES).toEqual(ROUTE_PATHS);
    expect(served.API_PREFIX).toBe(API_PREFIX);
    expect(await get('routes.d.ts')).toBe(404);
  });

  it('does not serve the type check’s files', async () => {
    for (const path of [
      'tsconfig.json',
      'types/console.d.ts',
      'types/import-core.d.ts',
      'pages/../tsconfig.json',
    ])
      expect(await get(path), path).toBe(404);
  });
});
