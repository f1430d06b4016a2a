import { describe, expect, it } from 'vitest';
import { API_ROUTES, fastifyPath, fillPath, pathOf, type RouteBody, type RouteData } from '../src/routes.js';
import type { SqlResultData } from '../src/sql.js';

describe('the route table', () => {
  it('fills a template, percent-encoding each parameter', () => {
    expect(pathOf(API_ROUTES.revertChange, { changeId: 'a/b c?' })).toBe('/changes/a%2Fb%20c%3F/revert');
    expect(pathOf(API_ROUTES.removeMember, { workspaceId: 'w1', userId: 'u#1' })).toBe(
      '/workspaces/w1/members/u%231',
    );
    expect(pathOf(API_ROUTES.me)).toBe('/me');
  });

  it('appends the query values that are given, and no "?" without any', () => {
    expect(pathOf(API_ROUTES.changes, {}, { limit: 5, before: undefined, idPrefix: 'ab' })).toBe(
      '/changes?limit=5&idPrefix=ab',
    );
    expect(pathOf(API_ROUTES.changes, {}, { before: undefined })).toBe('/changes');
    expect(pathOf(API_ROUTES.report, { kind: 'balances' }, { from: '2026-01-01' })).toBe(
      '/reports/balances?from=2026-01-01',
    );
  });

  it('refuses a template whose parameter has no value', () => {
    expect(() => fillPath('/changes/{changeId}', {})).toThrow(TypeError);
  });

  it("writes Fastify's :param form", () => {
    expect(fastifyPath('/workspaces/{workspaceId}/members/{userId}')).toBe(
      '/workspaces/:workspaceId/members/:userId',
    );
    expect(fastifyPath('/me')).toBe('/me');
  });

  it('has one entry per method and path', () => {
    const keys = Object.values(API_ROUTES).map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('types parameters, bodies and data from the entry (checked by the type check)', () => {
    // @ts-expect-error: a template with parameters needs them
    expect(() => pathOf(API_ROUTES.change)).toThrow(TypeError);
    // @ts-expect-error: a parameter the template does not name
    expect(pathOf(API_ROUTES.change, { changeId: 'c', other: 'x' })).toBe('/changes/c');
    const query: RouteBody<typeof API_ROUTES.sqlQuery> = { sql: 'SELECT 1' };
    // @ts-expect-error: /sql/query takes no dryRun (only /sql/execute and /sql do)
    const dry: RouteBody<typeof API_ROUTES.sqlQuery> = { sql: 'SELECT 1', dryRun: true };
    const execute: RouteBody<typeof API_ROUTES.sqlExecute> = { sql: 'DELETE FROM x', dryRun: true };
    const data: RouteData<typeof API_ROUTES.sqlQuery> extends SqlResultData ? true : false = true;
    const none: RouteData<typeof API_ROUTES.revokeKey> = undefined;
    expect([query, dry, execute, data, none]).toHaveLength(5);
  });
});
