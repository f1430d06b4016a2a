import { defineConfig, type Options } from 'tsup';

const server: Options = {
  // The import read pool's worker is an entry of its own (src/features/imports/read-pool.ts starts it from dist/).
  entry: {
    index: 'src/index.ts',
    bin: 'src/bin.ts',
    'import-read-worker': 'src/features/imports/read-worker.ts',
  },
  format: ['esm', 'cjs'],
  // @expense/wire and @expense/mcp are private: bundle their code and inline their types.
  noExternal: ['@expense/wire', '@expense/mcp'],
  dts: { entry: 'src/index.ts', resolve: ['@expense/wire', '@expense/mcp'] },
  clean: true,
  sourcemap: true,
  target: 'node20',
  splitting: false,
  // import.meta.url in the CommonJS build (the README route finds the package directory with it).
  shims: true,
};

/** In the browser bundle, the import core's hash seam is the pure one (packages/import/src/send/digest.ts). */
const browserSeams: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'import-core-browser-seams',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/(?:send\/)?digest\.js$/ }, async (args) => {
      const resolved = await build.resolve(args.path.replace(/digest\.js$/, 'digest.browser.js'), {
        kind: args.kind,
        resolveDir: args.resolveDir,
      });
      return { path: resolved.path };
    });
    build.onResolve({ filter: /^csv-parse\/sync$/ }, async (args) => {
      const resolved = await build.resolve('csv-parse/browser/esm/sync', {
        kind: args.kind,
        resolveDir: args.resolveDir,
      });
      return { path: resolved.path };
    });
  },
};

/**
 * The console's import page runs the import core of `expense import` (docs/console.md, "Import"): bundled from
 * @expense/import's browser entry (packages/import, never the CLI's source) into one ES module among the console's
 * static files, with the browser's seams. Built with the server, never checked in (console/build/ is ignored).
 */
const importCore: Options = {
  entry: { 'import-core': '../import/src/browser.ts' },
  outDir: 'console/build',
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  bundle: true,
  noExternal: [/.*/],
  splitting: false,
  minify: true,
  sourcemap: true,
  clean: false,
  dts: false,
  outExtension: () => ({ js: '.js' }),
  esbuildPlugins: [browserSeams],
};

export default defineConfig([server, importCore]);
