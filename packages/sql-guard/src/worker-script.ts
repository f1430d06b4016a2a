import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on one of this package's scripts. `here` is the caller's `import.meta.url`. Built, the
 * script is the .js file at `built` (relative to `here`); from source (tests, with the `@expense/source`
 * condition), the .ts file at `source`, loaded through tsx (a development dependency).
 */
export function spawnScript(
  here: string,
  paths: { built: string; source: string },
  workerData: unknown,
): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(paths.built, here), { workerData });
  const script = new URL(paths.source, here).href;
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(script)}); })`;
  return new Worker(boot, { eval: true, workerData });
}
