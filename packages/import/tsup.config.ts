import { defineConfig } from 'tsup';

// The import core in both module systems: `.` for Node (the CLI, the server), `./browser` the same core with the
// browser's seams left to the bundler that uses it (the server's console bundle, packages/server/tsup.config.ts).
export default defineConfig({
  entry: ['src/index.ts', 'src/browser.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  splitting: false,
});
