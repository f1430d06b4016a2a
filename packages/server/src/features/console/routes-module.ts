import { API_PREFIX, ROUTE_PATHS } from '@expense/wire/route-paths';

/** Where the console loads the route table from (console/routes.d.ts types it). */
export const ROUTES_MODULE_PATH = '/assets/routes.js';

/**
 * The console's route table as an ES module: the API's routes by name, their methods and paths, from the one
 * home (@expense/wire's ROUTE_PATHS). Served rather than generated, so there is no copy to fall behind.
 */
export const ROUTES_MODULE = `// The API's routes by name (@expense/wire's ROUTE_PATHS), served by the server.
export const API_PREFIX = ${JSON.stringify(API_PREFIX)};
export const ROUTES = ${JSON.stringify(ROUTE_PATHS, null, 2)};
`;
