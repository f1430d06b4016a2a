// The console calls the API's routes by name: every `api(...)`/`apiCall(...)` of its sources takes `ROUTES.<name>`
// (routes.js, which the server serves from @expense/wire's ROUTE_PATHS, the table it registers its routes from),
// never a method and a path of its own. A renamed or removed route fails here and in the console's type check.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { describe, expect, it } from 'vitest';

const CONSOLE = join(import.meta.dirname, '../../../../console');
const SOURCES = [
  ...readdirSync(CONSOLE).filter((f) => f.endsWith('.js')),
  ...readdirSync(join(CONSOLE, 'pages'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `pages/${f}`),
];

/** Calls whose route is a variable: the file, the variable, and the routes it is given there. */
const VARIABLE_ROUTES: Record<string, { variable: string; routes: string[] }> = {
  'pages/sql.js': { variable: 'route', routes: ['sqlQuery', 'sqlExecute'] },
};

/** A call and its first argument, up to the first comma or closing parenthesis. */
const CALL = /\bapi(?:Call)?\(\s*([^,)]*)/g;
const BY_NAME = /^ROUTES\.([A-Za-z]+)$/;

/** What is wrong with a call's first argument, if anything. */
function problemOf(file: string, argument: string): string | undefined {
  const named = BY_NAME.exec(argument);
  if (named) return named[1]! in ROUTE_PATHS ? undefined : `no route named ${named[1]}`;
  if (VARIABLE_ROUTES[file]?.variable === argument) return undefined;
  return `not a route of ROUTES: ${argument}`;
}

const calls = SOURCES.flatMap((file) =>
  [...readFileSync(join(CONSOLE, file), 'utf8').matchAll(CALL)]
    .map((m) => ({ file, argument: m[1]!.trim() }))
    // the definitions in api.js
    .filter((c) => !(c.file === 'api.js' && ['route', 'method'].includes(c.argument))),
);

describe("the console's API calls", () => {
  it('are found in its sources', () => {
    // Pages that call the API: home, keys, members, activity, reports, budgets, workspaces, sql, import.
    expect(calls.length).toBeGreaterThan(25);
    expect(new Set(calls.map((c) => c.file)).size).toBeGreaterThan(8);
  });

  it('each name a route of the table', () => {
    const strays = calls.flatMap((c) => {
      const problem = problemOf(c.file, c.argument);
      return problem ? [`${c.file}: ${problem}`] : [];
    });
    expect(strays).toEqual([]);
  });

  it('pass a variable route only where listed, and it is given routes by name', () => {
    for (const [file, { routes }] of Object.entries(VARIABLE_ROUTES)) {
      const source = readFileSync(join(CONSOLE, file), 'utf8');
      for (const name of routes) {
        expect(source).toContain(`ROUTES.${name}`);
        expect(name in ROUTE_PATHS, name).toBe(true);
      }
    }
  });

  it('would catch a spelled path, an unknown name and an unlisted variable', () => {
    expect(problemOf('pages/keys.js', "'/keys'")).toMatch(/not a route/);
    expect(problemOf('pages/keys.js', "'GET'")).toMatch(/not a route/);
    expect(problemOf('pages/keys.js', 'ROUTES.key')).toMatch(/no route named key/);
    expect(problemOf('pages/keys.js', 'route')).toMatch(/not a route/);
    expect(problemOf('pages/keys.js', 'ROUTES.keys')).toBeUndefined();
  });
});
