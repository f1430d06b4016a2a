import { describe, expect, it } from 'vitest';
import { API_ROUTES, fastifyPath, fillPath, pathOf } from '../src/routes.js';

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
});
