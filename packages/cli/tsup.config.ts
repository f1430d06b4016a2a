import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const shared: Options = {
  target: 'node20',
  sourcemap: true,
  // The wire schemas are private to the monorepo: they ship inside the CLI.
  noExternal: ['@expense/wire'],
  define: { __CLI_VERSION__: JSON.stringify(version) },
};

export default defineConfig([
  {
    ...shared,
    // The `expense` executable: ESM split into chunks, so each command's module (and the HTTP client, the
    // schemas, the MCP SDK it needs) loads only when that command runs; `--version` and `--help` load the
    // command tree alone.
    entry: ['src/bin.ts'],
    format: ['esm'],
    splitting: true,
    clean: true,
    // The shebang makes dist/bin.js the `expense` executable.
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...shared,
    // The library, in both module systems, one file each.
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    splitting: false,
    dts: { entry: 'src/index.ts' },
  },
]);
