import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/**
 * commander requires node:child_process (and with it dgram, net's socket lists ...) at load, for executable
 * subcommands, which `expense` has none of: in the bundle it gets the module when it first spawns.
 */
type Plugin = NonNullable<Options['esbuildPlugins']>[number];
const lazyChildProcessForCommander: Plugin = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child_process', namespace: 'lazy-builtin' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({
      contents:
        "module.exports = { spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

const shared: Options = {
  target: 'node20',
  sourcemap: true,
  // The wire schemas and the MCP server (@expense/mcp) are private to the monorepo: they ship inside the CLI, with
  // the parts of zod they use (one module instead of zod's ~95 files at start-up). The import core (@expense/import)
  // ships inside it too, with its csv-parse and fast-xml-parser as the CLI's dependencies.
  noExternal: ['@expense/wire', '@expense/mcp', '@expense/import', 'zod'],
  define: { __CLI_VERSION__: JSON.stringify(version) },
};

const bin: Options = {
  ...shared,
  // The `expense` executable: ESM split into chunks, so each command's module (and the HTTP client, the
  // schemas, the MCP SDK it needs) loads only when that command runs; `--version` and `--help` load the
  // command tree alone.
  entry: ['src/bin.ts'],
  format: ['esm'],
  // commander too: resolving it in node_modules and loading it as CommonJS cost more than its code.
  noExternal: [...(shared.noExternal ?? []), 'commander'],
  esbuildPlugins: [lazyChildProcessForCommander],
  // (tsup's own plugin would otherwise mark `node:child_process` external before the one above sees it)
  removeNodeProtocol: false,
  splitting: true,
  esbuildOptions(options) {
    options.chunkNames = 'chunks/[name]-[hash]';
  },
  // Each half cleans all but the other's files (tsup's patterns are exceptions to `**/*`): `pnpm expense`
  // rebuilds the executable alone (build:bin).
  clean: ['!index.*'],
  // The shebang makes dist/bin.js the `expense` executable; the bundled commander (CommonJS) requires
  // Node's built-ins, for which an ES module needs its own require.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cliCreateRequire } from 'node:module';\nconst require = __cliCreateRequire(import.meta.url);",
  },
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
