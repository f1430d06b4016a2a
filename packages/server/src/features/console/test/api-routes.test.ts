// The console's API calls are routes of the table (@expense/wire's API_ROUTES). The console is plain JS served as
// it is (no build step for its pages), so it keeps its paths, and this test reads every `api(...)`/`apiCall(...)`
// of its sources and checks the method and path against the table: a renamed or removed route fails here, as it
// fails the CLI's and the MCP adapter's type check.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_ROUTES } from '@expense/wire';
import { describe, expect, it } from 'vitest';

const CONSOLE = join(import.meta.dirname, '../../../../console');
const SOURCES = [
  ...readdirSync(CONSOLE).filter((f) => f.endsWith('.js')),
  ...readdirSync(join(CONSOLE, 'pages'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `pages/${f}`),
];

/** Calls whose path is a variable: the file, the variable, and the paths it is given there (literally). */
const VARIABLE_PATHS: Record<string, { variable: string; method: string; paths: string[] }> = {
  'pages/sql.js': { variable: 'endpoint', method: 'POST', paths: ['/sql/query', '/sql/execute'] },
};

const CALL = /\bapi(?:Call)?\(\s*'([A-Z]+)',\s*(?:'([^']*)'|`([^`]*)`|([A-Za-z_$][\w$]*))/g;

/** The table's routes as `METHOD` and a pattern of the path (a parameter matches one segment). */
const TABLE = Object.values(API_ROUTES).map((route) => ({
  method: route.method as string,
  pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** A path as the console spells it, without its query; `${...}` stands for one segment's value. */
function pathPart(spelled: string): string {
  return spelled.split('?')[0]!.replace(/\$\{[^}]*\}/g, 'value');
}

const inTable = (method: string, path: string) =>
  TABLE.some((route) => route.method === method && route.pattern.test(path));

describe("the console's API calls", () => {
  const calls = SOURCES.flatMap((file) =>
    [...readFileSync(join(CONSOLE, file), 'utf8').matchAll(CALL)].map((m) => ({
      file,
      method: m[1]!,
      path: m[2] ?? m[3],
      variable: m[4],
    })),
  );

  it('are found in its sources', () => {
    // Pages that call the API: home, keys, members, activity, reports, budgets, workspaces, sql, import.
    expect(calls.length).toBeGreaterThan(25);
    expect(new Set(calls.map((c) => c.file)).size).toBeGreaterThan(8);
  });

  it('each name a route of the table with its method', () => {
    const strays = calls
      .filter((c) => c.path !== undefined && !inTable(c.method, pathPart(c.path)))
      .map((c) => `${c.file}: ${c.method} ${c.path}`);
    expect(strays).toEqual([]);
  });

  it('pass variable paths only where listed, and those take routes of the table', () => {
    for (const call of calls.filter((c) => c.variable !== undefined)) {
      const known = VARIABLE_PATHS[call.file];
      expect(known?.variable, `${call.file}: ${call.method} ${call.variable}`).toBe(call.variable);
      expect(known?.method).toBe(call.method);
      const source = readFileSync(join(CONSOLE, call.file), 'utf8');
      for (const path of known?.paths ?? []) {
        expect(source).toContain(`'${path}'`);
        expect(inTable(call.method, path), path).toBe(true);
      }
    }
  });

  it('would catch a path the table does not have', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: paths as the console's template literals spell them
    const spelled = ['/changes/${id}', '/change/${id}', '/reports/budget_vs_actual?${query}'] as const;
    expect(inTable('GET', pathPart(spelled[0]))).toBe(true);
    expect(inTable('GET', pathPart(spelled[1]))).toBe(false);
    expect(inTable('POST', pathPart(spelled[0]))).toBe(false);
    expect(inTable('GET', pathPart(spelled[2]))).toBe(true);
  });
});
