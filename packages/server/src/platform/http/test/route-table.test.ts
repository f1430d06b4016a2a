// The route table (@expense/wire's API_ROUTES) is what the server registers: every entry with its method and
// path under /v1, and every /v1 route the server has is an entry or one of the few documents listed below.
import { AGENT_PREFIX, AGENT_ROUTES, API_PREFIX, API_ROUTES, fastifyPath } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../storage/index.js';

/** /v1 routes that are not API calls of the table: documents (Markdown, OpenAPI) and an alias of discovery. */
const NOT_IN_TABLE = new Set([
  'GET /v1/agent', // discovery under a name agents guess
  'GET /v1/readme', // the README as Markdown
  'GET /v1/guide', // the agent guide as Markdown
  'GET /v1/guide/:topic',
  'GET /v1/openapi.json', // the OpenAPI document
  'GET /v1/swagger.json',
]);

/**
 * Every route as `METHOD /path` from Fastify's printRoutes tree (HEAD left out: Fastify adds it to each GET).
 * A line is `<indent><├──|└──> <segment> (<METHODS>)`, four columns per level; a path is its ancestors' segments.
 */
function registeredRoutes(app: FastifyInstance): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = [...(m[1] ?? '')].length / 4;
    stack.length = depth;
    stack.push(m[2] ?? '');
    const path = stack.join('').replace(/^\/\//, '/');
    for (const method of (m[3] ?? '').split(', ')) {
      if (method && method !== 'HEAD') routes.push(`${method} ${path}`);
    }
  }
  return routes;
}

describe('the route table and the server', () => {
  let db: Database;
  let app: FastifyInstance;
  let registered: string[];

  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: 'memory://' });
    app = await createServer({ logLevel: 'silent' }, { database: db });
    await app.ready();
    registered = registeredRoutes(app);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('reads the registered routes (the tree parser finds nested and sibling routes)', () => {
    expect(registered).toEqual(
      expect.arrayContaining([
        'GET /v1/me',
        'POST /v1/sql',
        'POST /v1/sql/query',
        'DELETE /v1/workspaces/:workspaceId/members/:userId',
        'POST /v1/changes/:changeId/revert',
        'POST /api/agent/send-code',
      ]),
    );
  });

  it('registers every entry of the table with its method and path', () => {
    for (const [name, route] of Object.entries(API_ROUTES)) {
      const url = `${API_PREFIX}${fastifyPath(route.path)}`;
      expect(app.hasRoute({ method: route.method, url }), `${name}: ${route.method} ${url}`).toBe(true);
      expect(registered, name).toContain(`${route.method} ${url}`);
    }
  });

  it('registers the sign-in routes of the table under /api/agent, and no other', () => {
    const table = Object.values(AGENT_ROUTES).map((route) => `${route.method} ${AGENT_PREFIX}${route.path}`);
    const agent = registered.filter((route) => route.split(' ')[1]?.startsWith(`${AGENT_PREFIX}/`));
    expect(agent.sort()).toEqual(table.sort());
  });

  it('has every /v1 route in the table, or on the list of documents', () => {
    const inTable = new Set(
      Object.values(API_ROUTES).map((route) => `${route.method} ${API_PREFIX}${fastifyPath(route.path)}`),
    );
    const v1 = registered.filter((route) => route.split(' ')[1]?.startsWith(`${API_PREFIX}/`));
    const strays = v1.filter((route) => !inTable.has(route) && !NOT_IN_TABLE.has(route));
    expect(strays).toEqual([]);
    // The list names only routes that exist.
    expect(v1).toEqual(expect.arrayContaining([...NOT_IN_TABLE]));
  });
});
