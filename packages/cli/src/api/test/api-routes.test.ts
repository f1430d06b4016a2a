// The CLI's SQL calls carry their routes without the wire's schemas (so `expense query` loads no zod); they must be
// the route table's.
import { API_ROUTES } from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { SQL_ROUTES } from '../index.js';

describe('the CLI’s SQL routes', () => {
  it('are the route table’s', () => {
    const table = [API_ROUTES.sqlQuery, API_ROUTES.sqlExecute, API_ROUTES.sqlScript].map(
      ({ method, path }) => ({
        method,
        path,
      }),
    );
    expect(Object.values(SQL_ROUTES)).toEqual(table);
    for (const [endpoint, route] of Object.entries(SQL_ROUTES)) expect(route.path).toBe(endpoint);
  });
});
