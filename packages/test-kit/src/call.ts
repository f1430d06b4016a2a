// A request to a server under test by a route of the table (@expense/wire's API_ROUTES and AGENT_ROUTES): the
// method and the path come from the route, so a test names the route instead of spelling its path.
import {
  AGENT_PREFIX,
  AGENT_ROUTES,
  API_PREFIX,
  type ApiRoute,
  fillPath,
  type PathArgs,
  type PathParamNames,
  type PathParams,
  type QueryValues,
  type RouteBody,
} from '@expense/wire';
import type { RequestOptions } from './http.js';

const AGENT: ReadonlySet<ApiRoute> = new Set(Object.values(AGENT_ROUTES));

/** Where a route of the table is mounted: AGENT_PREFIX for the sign-in's routes, API_PREFIX for the others. */
export function prefixOf(route: ApiRoute): string {
  return AGENT.has(route) ? AGENT_PREFIX : API_PREFIX;
}

const fullPath = (route: ApiRoute, params?: Record<string, string>, query?: QueryValues) =>
  `${prefixOf(route)}${fillPath(route.path, params, query)}`;

/** A route's path on the server: its prefix and its template filled in, with the query's defined values. */
export function routePath<R extends ApiRoute>(route: R, ...args: PathArgs<R>): string {
  const [params, query] = args as [Record<string, string> | undefined, QueryValues | undefined];
  return fullPath(route, params, query);
}

/** One call of a route: its path parameters (required when its template has any), query, typed body, key. */
export type RouteCall<R extends ApiRoute> = Omit<RequestOptions, 'body'> & {
  query?: QueryValues;
  body?: RouteBody<R>;
} & (PathParamNames<R['path']> extends never ? { params?: undefined } : { params: PathParams<R> });

/** What call needs of a client: the Client of http.ts, fastify's inject as one, or a live server's request. */
export interface RouteClient<Res> {
  request(method: string, path: string, options?: RequestOptions): Promise<Res>;
}

/**
 * Calls a route of the table with the client's own request, e.g.
 * `call(client, API_ROUTES.revertChange, { params: { changeId }, key, body: { dryRun: true } })`.
 */
export function call<R extends ApiRoute, Res>(
  client: RouteClient<Res>,
  route: R,
  ...[request]: PathParamNames<R['path']> extends never ? [request?: RouteCall<R>] : [request: RouteCall<R>]
): Promise<Res> {
  const { params, query, ...options } = (request ?? {}) as RouteCall<ApiRoute> & {
    params?: Record<string, string>;
  };
  return client.request(route.method, fullPath(route, params, query), options);
}
