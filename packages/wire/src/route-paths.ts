/*
 * The API's routes by name, once: each with its method and its path template under /v1 (`{name}` for a path
 * parameter). Plain data without zod, so the CLI's hot path and the console (served as /console/assets/routes.js)
 * load it for nothing; routes.ts gives each route its schemas (API_ROUTES), and the server registers its routes
 * from that. scripts/check-definitions.mjs refuses a `/v1/` path spelled anywhere else in the console or the CLI.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Where the table's paths are mounted. */
export const API_PREFIX = '/v1';

export interface RoutePath {
  method: HttpMethod;
  /** Under API_PREFIX, e.g. `/changes/{changeId}/revert`. */
  path: string;
}

export const ROUTE_PATHS = {
  discovery: { method: 'GET', path: '/' },
  health: { method: 'GET', path: '/healthz' },
  ready: { method: 'GET', path: '/readyz' },
  me: { method: 'GET', path: '/me' },
  deleteAccount: { method: 'DELETE', path: '/me' },

  workspaces: { method: 'GET', path: '/workspaces' },
  createWorkspace: { method: 'POST', path: '/workspaces' },
  renameWorkspace: { method: 'PATCH', path: '/workspaces/{workspaceId}' },
  selectWorkspace: { method: 'POST', path: '/workspaces/{workspaceId}/select' },
  deleteWorkspace: { method: 'DELETE', path: '/workspaces/{workspaceId}' },
  exportWorkspace: { method: 'GET', path: '/workspaces/{workspaceId}/export' },
  restoreWorkspace: { method: 'POST', path: '/workspaces/{workspaceId}/restore' },

  members: { method: 'GET', path: '/workspaces/{workspaceId}/members' },
  addMember: { method: 'POST', path: '/workspaces/{workspaceId}/members' },
  removeMember: { method: 'DELETE', path: '/workspaces/{workspaceId}/members/{userId}' },

  invitations: { method: 'GET', path: '/invitations' },
  acceptInvitation: { method: 'POST', path: '/invitations/{workspaceId}/accept' },
  declineInvitation: { method: 'DELETE', path: '/invitations/{workspaceId}' },

  keys: { method: 'GET', path: '/keys' },
  createKey: { method: 'POST', path: '/keys' },
  revokeKey: { method: 'DELETE', path: '/keys/{connectionId}' },

  schema: { method: 'GET', path: '/schema' },
  sqlQuery: { method: 'POST', path: '/sql/query' },
  sqlExecute: { method: 'POST', path: '/sql/execute' },
  sqlScript: { method: 'POST', path: '/sql' },

  changes: { method: 'GET', path: '/changes' },
  change: { method: 'GET', path: '/changes/{changeId}' },
  revertChange: { method: 'POST', path: '/changes/{changeId}/revert' },

  report: { method: 'GET', path: '/reports/{kind}' },
  importFile: { method: 'POST', path: '/imports' },
} as const satisfies Record<string, RoutePath>;

export type RouteName = keyof typeof ROUTE_PATHS;

/** The parameter names of a path template: `'/a/{x}/b/{y}'` → `'x' | 'y'`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamNames<Rest>
  : never;

/** The values a route's path parameters take. */
export type PathParams<R extends { path: string }> = { [K in PathParamNames<R['path']>]: string };

/** A query string's values; undefined ones are left out. */
export type QueryValues = Record<string, string | number | boolean | undefined>;

/** pathOf's arguments after the route: its parameters (required when its template has any) and a query. */
export type PathArgs<R extends { path: string }> =
  PathParamNames<R['path']> extends never
    ? [params?: Record<string, never>, query?: QueryValues]
    : [params: PathParams<R>, query?: QueryValues];

/**
 * A route's path under API_PREFIX with its parameters filled in, percent-encoded, and the query's defined values
 * appended (`?a=1&b=2`, none when it has none): `pathOf(API_ROUTES.revertChange, { changeId })`.
 */
export function pathOf<R extends { path: string }>(route: R, ...[params, query]: PathArgs<R>): string {
  return fillPath(route.path, params, query);
}

/** A route's method and filled path (pathOf), for a caller that sends both. */
export function requestOf<R extends RoutePath>(
  route: R,
  ...args: PathArgs<R>
): { method: R['method']; path: string } {
  const [params, query] = args as [Record<string, string> | undefined, QueryValues | undefined];
  return { method: route.method, path: fillPath(route.path, params, query) };
}

/** pathOf for a template known only at run time: throws a TypeError when a parameter has no value. */
export function fillPath(
  template: string,
  params: Record<string, string> = {},
  query: QueryValues = {},
): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${template}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  return search.size > 0 ? `${path}?${search}` : path;
}

/** A path template in Fastify's form: `/changes/{changeId}/revert` → `/changes/:changeId/revert`. */
export function fastifyPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ':$1');
}
