// routes.js is not a file here: the server serves it from the route table's one home, @expense/wire's ROUTE_PATHS
// (src/features/console/routes-module.ts), so the console calls routes by name and cannot spell a path of its own.
export declare const API_PREFIX: typeof import('@expense/wire/route-paths').API_PREFIX;
export declare const ROUTES: typeof import('@expense/wire/route-paths').ROUTE_PATHS;
