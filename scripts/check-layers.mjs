#!/usr/bin/env node
// The house rules a reader relies on (docs/architecture.md, "The server"), checked in `pnpm lint`:
// - no import cycle: none at all in server, CLI, import, wire and mcp; none at run time in sql-guard, whose checker
//   (walker and rules, a visitor) refers to its own types both ways;
// - the packages' arrows point down (PACKAGE_ARROWS): the guard imports no package, the wire (the contract) only
//   the guard, the MCP server and guide (mcp) only the wire; the server and the CLI may import all of these;
// - the server's layers point down: platform/ imports no feature and not the app, a feature imports the app only
//   for the AppContext type (context.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree } from 'dpdm';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const problems = [];

/** [package, entries, whether type-only imports count] */
const PACKAGES = [
  ['server', ['src/index.ts', 'src/bin.ts'], true],
  ['cli', ['src/bin.ts', 'src/index.ts'], true],
  ['import', ['src/index.ts', 'src/browser.ts'], true],
  ['wire', ['src/index.ts'], true],
  ['mcp', ['src/index.ts', 'src/guide/index.ts'], true],
  ['sql-guard', ['src/index.ts'], false],
];

for (const [name, entries, withTypes] of PACKAGES) {
  const context = join(ROOT, 'packages', name);
  const tree = await parseDependencyTree(
    entries.map((e) => join(context, e)),
    {
      context,
      tsconfig: join(context, 'tsconfig.json'),
      transform: !withTypes,
      skipDynamicImports: 'circular',
    },
  );
  for (const cycle of parseCircular(tree)) {
    // Paths are relative to the package: a cycle through another package is that package's own.
    if (!cycle.some((file) => file.startsWith('../')))
      problems.push(`cycle in ${name}: ${cycle.join(' -> ')}`);
  }
}

/** The @expense packages each package's code may import; its tests, benchmarks and fuzzers may import test-kit too. */
const PACKAGE_ARROWS = {
  'sql-guard': [],
  wire: ['sql-guard'],
  mcp: ['wire'],
  import: [],
  'test-kit': ['wire'],
  server: ['sql-guard', 'wire', 'mcp', 'import'],
  cli: ['sql-guard', 'wire', 'mcp', 'import'],
};
const PACKAGE_IMPORT =
  /^\s*(?:import|export)\b[^'"]*?(?:from\s+)?'@expense\/([\w-]+)[^']*'|\bimport\(\s*'@expense\/([\w-]+)/gm;
const SKIPPED = new Set(['node_modules', 'dist', 'build']);
for (const pkg of readdirSync(join(ROOT, 'packages'))) {
  const allowed = PACKAGE_ARROWS[pkg];
  if (!allowed) {
    problems.push(
      `packages/${pkg}: not in PACKAGE_ARROWS (scripts/check-layers.mjs); say what it may import`,
    );
    continue;
  }
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(?:ts|tsx|js|mjs)$/.test(entry.name)) {
        const rel = relative(join(ROOT, 'packages', pkg), full);
        const testing =
          /(?:^|\/)(?:test|bench|test-faults|test-load|fuzz)\//.test(rel) || rel.endsWith('.test.ts');
        for (const [, fromName, dynamicName] of readFileSync(full, 'utf8').matchAll(PACKAGE_IMPORT)) {
          const to = fromName ?? dynamicName;
          if (to === pkg || allowed.includes(to) || (testing && to === 'test-kit')) continue;
          problems.push(
            `packages/${pkg}/${rel} imports @expense/${to}: ${pkg} may import ${allowed.map((a) => `@expense/${a}`).join(', ') || 'no @expense package'}`,
          );
        }
      }
    }
  };
  walk(join(ROOT, 'packages', pkg));
}

const SERVER = join(ROOT, 'packages/server/src');
const APP = new Set(['app.ts', 'bin.ts', 'index.ts', 'context.ts']);
const IMPORT = /^\s*(import|export)(\s+type)?[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm;
const layerOf = (file) => {
  const rel = relative(SERVER, file);
  if (APP.has(rel)) return 'app';
  return rel.split('/')[0];
};
for (const entry of readdirSync(SERVER, { recursive: true })) {
  // A feature's or a platform module's tests (its test/ folder) may use any layer, as the app does.
  if (!entry.endsWith('.ts') || entry.split('/').includes('test')) continue;
  const file = join(SERVER, entry);
  const from = layerOf(file);
  for (const [, , typeOnly, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    const to = layerOf(target);
    const where = `packages/server/src/${entry} imports ${relative(SERVER, target)}`;
    if (from === 'platform' && to !== 'platform')
      problems.push(`${where}: platform/ may import only platform/`);
    if (from === 'features' && to === 'app' && !(typeOnly && target.endsWith('context.ts')))
      problems.push(`${where}: a feature may import only the AppContext type from the app`);
    if (!['platform', 'features', 'app'].includes(from))
      problems.push(`packages/server/src/${entry}: outside the layers`);
  }
}

if (problems.length > 0) {
  console.error([...new Set(problems)].join('\n'));
  process.exit(1);
}
console.log('layers: no import cycle, no arrow back up (between the packages or within the server)');
