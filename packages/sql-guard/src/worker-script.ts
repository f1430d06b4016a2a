import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** From source: each script's bundle, made once per process. */
const bundles = new Map<string, string>();

/**
 * Starts a worker thread on one of this package's scripts. `here` is the caller's `import.meta.url`. Built, the
 * script is the .js file at `built` (relative to `here`). From source (tests, with the `@expense/source`
 * condition), the .ts file at `source`, bundled once per process by esbuild (a development dependency) into
 * CommonJS that requires its packages from the source's folder: a TypeScript loader in each worker (tsx's
 * hooks, a thread of their own) cost more CPU than PGlite's own start.
 */
export function spawnScript(
  here: string,
  paths: { built: string; source: string },
  workerData: unknown,
): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(paths.built, here), { workerData });
  const script = fileURLToPath(new URL(paths.source, here));
  let bundle = bundles.get(script);
  if (bundle === undefined) {
    bundle = bundleSource(here, script);
    bundles.set(script, bundle);
  }
  return new Worker(bundle, { eval: true, workerData });
}

function bundleSource(here: string, script: string): string {
  const require = createRequire(here);
  const esbuild = require('esbuild') as typeof import('esbuild');
  const [output] = esbuild.buildSync({
    entryPoints: [script],
    bundle: true,
    packages: 'external',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  }).outputFiles;
  if (!output) throw new Error(`esbuild made no bundle of ${script}`);
  // An eval worker's own `require` resolves from the working directory; the script's packages are found from its
  // folder (pnpm links each package's dependencies there).
  return `((require) => {\n${output.text}\n})(require('node:module').createRequire(${JSON.stringify(script)}));`;
}
