import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm', 'cjs'],
  // @expense/wire is private: bundle its code and inline its types.
  noExternal: ['@expense/wire'],
  dts: { entry: 'src/index.ts', resolve: ['@expense/wire'] },
  clean: true,
  sourcemap: true,
  target: 'node20',
  splitting: false,
  // import.meta.url in the CommonJS build (the README route finds the package directory with it).
  shims: true,
});
