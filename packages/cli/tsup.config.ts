import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const shared: Options = {
  target: 'node20',
  sourcemap: true,
  // The wire schemas are private to the monorepo: they ship inside the CLI, with the parts of zod they use
  // (one module instead of zod's ~95 files at start-up).
  noExternal: ['@expense/wire', 'zod'],
  define: { __CLI_VERSION__: JSON.stringify(version) },
};

const bin: Options = {
  ...shared,
  // The `expense` executable: ESM split into chunks, so each command's module (and the HTTP client, the
  // schemas, the MCP SDK it needs) loads only when that command runs; `--version` and `--help` load the
  // command tree alone.
  entry: ['src/bin.ts'],
  format: ['esm'],
  splitting: true,
  esbuildOptions(options) {
    options.chunkNames = 'chunks/[name]-[hash]';
  },
  // Each half cleans all but the other's files (tsup's patterns are exceptions to `**/*`): `pnpm expense`
  // rebuilds the executable alone (build:bin).
  clean: ['!index.*'],
  // The shebang makes dist/bin.js the `expense` executable.
  banner: { js: '#!/usr/bin/env node' },
};

const library: Options = {
  ...shared,
  // The library, in both module systems, one file each.
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  splitting: false,
  clean: ['!bin.js*', '!chunks/**'],
  dts: { entry: 'src/index.ts' },
};

export default defineConfig((options) => (options.env?.ONLY === 'bin' ? [bin] : [bin, library]));
