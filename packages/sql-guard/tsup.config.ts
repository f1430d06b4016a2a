import { defineConfig } from 'tsup';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/codes.ts',
    'src/adapters/pg.ts',
    'src/adapters/pglite.ts',
    'src/adapters/pglite-worker-thread.ts',
    'src/pool/check-worker.ts',
    'src/worker-pool.ts',
  ],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  splitting: false,
  // import.meta.url in the CJS build (the PGlite adapter locates its worker script with it).
  shims: true,
});
