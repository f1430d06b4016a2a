import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// Node's global WebAssembly: TypeScript declares its values in the DOM library, which this package does not load.
const wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly;

let compiled: Promise<WebAssembly.Module | undefined> | undefined;

/**
 * PGlite's WebAssembly, compiled once per process and handed to each worker thread (a worker would otherwise
 * read and compile its 9 MB again on every start: a restart after an interrupted statement, each database of a
 * process). The compiled code is shared between the threads; each instance keeps its own memory. Undefined
 * when it cannot be compiled here: the worker then loads it itself, as PGlite does by default.
 */
export function compiledPglite(): Promise<WebAssembly.Module | undefined> {
  compiled ??= (async () => {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    return wasm.compile(await readFile(join(dirname(entry), 'pglite.wasm')));
  })().catch(() => undefined);
  return compiled;
}
