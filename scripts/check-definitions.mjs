#!/usr/bin/env node
// One home per primitive (issue 36), checked in `pnpm lint`: a second definition of one of these fails.
// - the SQL result: keys of its statements (returnedRowCount, totalRowCount, …) declared with a type or a check
//   outside packages/wire/src/sql.ts (the CLI checks answers with a projection generated from it);
// - the ledger columns: a literal list of most of ledger_entries' columns outside its home;
// - the routes: a table of `method: …, path: '/…'` entries outside packages/wire/src/route-paths.ts, and a `/v1/`
//   path spelled in the console's, the CLI's or the MCP server's source (they call routes by name: ROUTES,
//   ROUTE_PATHS, API_ROUTES; the MCP server only through the API client it is given), or in a test, benchmark or
//   tool (they call routes through the test kit's `call`/`routePath` or the bench's `callRoute`), but for the files
//   of PATHS_AS_SUBJECT, whose spelt paths are what they test.
// Comments are not definitions and are skipped; tests build answers and requests of their own, so only their paths
// are checked.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The homes, relative to the repository. */
export const HOMES = {
  sqlResult: 'packages/wire/src/sql.ts',
  ledgerColumns: 'packages/sql-guard/src/dialect/expense.ts',
  routes: 'packages/wire/src/route-paths.ts',
};

/**
 * Copies found when the check was written, each waiting for its owner to derive it from the home (issue 36).
 * Listed so that no new one can join them; the check fails when one is gone, so the list only shrinks.
 */
export const KNOWN_COPIES = {
  sqlResult: [
    // The guard's own result type: the guard is a library the wire depends on, not the other way round.
    'packages/sql-guard/src/types.ts',
  ],
  // The import package is also the console's browser bundle, so it does not load the guard's dialect; a test
  // (cli/src/import/test/import-fields.test.ts) holds this list to it.
  ledgerColumns: ['packages/import/src/rows/fields.ts'],
  routes: [
    // AGENT_ROUTES: the sign-in routes on {auth_url}, not under /v1.
    'packages/wire/src/routes.ts',
  ],
};

/**
 * Tests and tools whose spelt `/v1/` paths are their subject, not a way to reach a route, each with why. The check
 * fails when one no longer spells a path, so the list only shrinks.
 */
export const PATHS_AS_SUBJECT = {
  'packages/server/test-faults/fuzz-http.ts': 'raw, near-miss and malformed paths are the fuzzer’s input',
  'packages/test-kit/test/call.test.ts': 'the paths routePath and call build from the table',
  'packages/wire/test/check-definitions.test.ts': 'paths planted for this check to find',
  'packages/cli/src/checks/test/wire-checks.test.ts': 'a URL inside an answer the CLI checks',
  'packages/cli/src/commands/api/test/e2e-gh.test.ts': '`expense api` takes the path a person types',
  'packages/server/src/features/discovery/test/guide.test.ts': 'the guide’s pages, which are not API routes',
  'packages/server/src/features/discovery/test/http-write-flow-words.test.ts':
    'a guide page, not an API route',
  'packages/server/src/features/discovery/test/money-openapi.test.ts':
    'the OpenAPI document and its path keys',
  'packages/server/src/features/mcp/test/discovery.test.ts': 'the OpenAPI document and the guide',
  'packages/server/src/features/auth/test/api-key-auth.test.ts':
    'the OpenAPI document, not a route of the table',
  'packages/server/src/features/auth/test/flow.test.ts': 'discovery’s aliases and the URLs its answer gives',
  'packages/server/src/features/sql/test/consent.test.ts':
    'a malformed id, which no route of the table takes',
  'packages/server/src/features/sql/test/docs.test.ts': 'the commands docs/api.md shows',
  'packages/server/src/platform/http/test/errors.test.ts':
    'unknown and malformed paths, the OpenAPI document',
  'packages/server/bench/sql-throughput.ts': 'the labels of its result rows',
  'packages/server/test-load/fairness.ts': 'a label of its report',
};

const STATEMENT_KEYS = ['rowCount', 'returnedRowCount', 'totalRowCount', 'truncated', 'columns', 'rows'];
const LEDGER_COLUMNS = [
  'entry_id',
  'event_id',
  'ts',
  'account_id',
  'amount',
  'currency',
  'kind',
  'category',
  'counterparty',
  'note',
  'external_id',
];

/** The text without its comments (line and block), string contents kept. */
export function withoutComments(text) {
  let out = '';
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === quote) quote = null;
    } else if (c === '/' && text[i + 1] === '/' && !/[\w)\]]\s*$/.test(out.slice(-2))) {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const skipped = text.slice(i, end < 0 ? text.length : end + 2);
      out += skipped.replace(/[^\n]/g, '');
      i = end < 0 ? text.length : end + 1;
    } else {
      if (c === "'" || c === '"' || c === '`') quote = c;
      out += c;
    }
  }
  return out;
}

/** Keys of the SQL result's statements declared with a type or a check (`rowCount: z.int()`, `rowCount: number`). */
export function declaresSqlResult(code) {
  const declared = STATEMENT_KEYS.filter((key) =>
    new RegExp(
      `\\b${key}\\??\\s*:\\s*(?:z\\.|int\\b|number\\b|boolean\\b|string\\b|array\\(|optional\\(|unknown\\b)`,
    ).test(code),
  );
  return declared.length >= 4;
}

/** An array literal holding most of the ledger's columns as quoted names. */
export function listsLedgerColumns(code) {
  for (const array of code.matchAll(/\[[^[\]]*(?:\[[^[\]]*\][^[\]]*)*\]/g)) {
    const names = new Set([...array[0].matchAll(/['"`]([a-z_]+)['"`]/g)].map((m) => m[1]));
    if (LEDGER_COLUMNS.filter((c) => names.has(c)).length >= 7) return true;
  }
  return false;
}

/** Two or more entries of a route table (`method: 'GET', path: '/me'`). */
export function holdsRouteTable(code) {
  return (
    [...code.matchAll(/\bmethod:\s*['"](?:GET|POST|PUT|PATCH|DELETE)['"],\s*path:\s*['"`]\//g)].length >= 2
  );
}

/** `/v1/…` spelled in a string or template literal, line by line. */
export function v1Paths(code) {
  return code
    .split('\n')
    .flatMap((line, i) => (/['"`][^'"`]*\/v1\/[\w{$]/.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

/**
 * The second definitions among `files` ({ path relative to the repository, text }), as readable lines; known copies
 * that are gone are reported too, so that their entry is removed.
 */
export function secondDefinitions(files, known = KNOWN_COPIES) {
  const found = { sqlResult: [], ledgerColumns: [], routes: [] };
  const problems = [];
  for (const { path, text } of files) {
    const code = withoutComments(text);
    if (path !== HOMES.sqlResult && declaresSqlResult(code)) found.sqlResult.push(path);
    if (path !== HOMES.ledgerColumns && listsLedgerColumns(code)) found.ledgerColumns.push(path);
    if (path !== HOMES.routes && holdsRouteTable(code)) found.routes.push(path);
    if (/^packages\/(cli\/src|mcp\/src|server\/console)\//.test(path)) {
      for (const line of v1Paths(code))
        problems.push(
          `${path}:${line} — a /v1/ path spelled outside the route table; call the route by name`,
        );
    }
  }
  const what = {
    sqlResult: `a second definition of the SQL result (its home: ${HOMES.sqlResult}; derive from it)`,
    ledgerColumns: `a second list of the ledger columns (its home: ${HOMES.ledgerColumns})`,
    routes: `a second route table (its home: ${HOMES.routes}; use ROUTE_PATHS or API_ROUTES)`,
  };
  for (const kind of Object.keys(found)) {
    for (const path of found[kind]) if (!known[kind].includes(path)) problems.push(`${path}: ${what[kind]}`);
    for (const path of known[kind])
      if (!found[kind].includes(path) && files.some((f) => f.path === path))
        problems.push(
          `${path}: no longer ${what[kind].replace(/^a /, 'holds a ')} — remove it from KNOWN_COPIES`,
        );
  }
  return problems;
}

/**
 * A string or template literal that starts with a `/v1/` path, alone or after an origin (`${origin}/v1/…`,
 * `http://host/v1/…`), line by line: a path a request goes to. Prose that names a route ("GET /v1/me answers", a
 * test's title) does not start with it.
 */
export function reachedPaths(code) {
  return code
    .split('\n')
    .flatMap((line, i) =>
      /['"`](?:\$\{[^}]+\}|https?:\/\/[^\s'"`/]+)?\/v1\/[\w{$]/.test(line)
        ? [`${i + 1}: ${line.trim()}`]
        : [],
    );
}

/** The `/v1/` paths tests and tools send to, outside PATHS_AS_SUBJECT, and entries of it that send to none. */
export function spelledPaths(files, subjects = PATHS_AS_SUBJECT) {
  const problems = [];
  for (const { path, text } of files) {
    const lines = reachedPaths(withoutComments(text));
    if (path in subjects) {
      if (lines.length === 0) problems.push(`${path}: spells no /v1/ path — remove it from PATHS_AS_SUBJECT`);
      continue;
    }
    for (const line of lines)
      problems.push(`${path}:${line} — a /v1/ path spelled in a test or tool; call the route by name`);
  }
  return problems;
}

/** Tests, benchmarks and tools: each package's test/ folders (beside the code too), bench/, test-load/, test-faults/. */
export function testFiles(root) {
  const files = [];
  const walk = (dir, inTests) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if (error.code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (['node_modules', 'dist', 'build', 'vendor', 'fixtures'].includes(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, inTests || entry.name === 'test');
      else if (inTests && /\.(?:ts|mjs)$/.test(entry.name))
        files.push({ path: relative(root, full), text: readFileSync(full, 'utf8') });
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'))) {
    walk(join(root, 'packages', pkg, 'src'), false);
    for (const dir of ['test', 'bench', 'test-load', 'test-faults'])
      walk(join(root, 'packages', pkg, dir), true);
  }
  walk(join(root, 'examples'), true);
  return files;
}

/** The source files a definition could hide in: packages' src/ and the console, no tests, no builds. */
export function sourceFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', 'build', 'test', 'vendor'].includes(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(?:ts|js|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
        files.push({ path: relative(root, full), text: readFileSync(full, 'utf8') });
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'))) {
    for (const dir of ['src', 'console']) {
      try {
        walk(join(root, 'packages', pkg, dir));
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
    }
  }
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), '../..'));
  const problems = [...secondDefinitions(sourceFiles(root)), ...spelledPaths(testFiles(root))];
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(
    'check-definitions: one home each for the SQL result, the ledger columns and the routes; tests call routes by name',
  );
}
