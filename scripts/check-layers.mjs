#!/usr/bin/env node
// The house rules a reader relies on (docs/architecture.md, "The server"), checked in `pnpm lint`:
// - no import cycle: none at all in server, CLI, import and wire; none at run time in sql-guard, whose checker
//   (walker and rules, a visitor) refers to its own types both ways;
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
console.log('layers: no import cycle, no arrow back up');
