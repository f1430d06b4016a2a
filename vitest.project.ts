import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/** The migrated database templates each run builds once (vitest.global-setup.ts). */
const GLOBAL_SETUP = new URL('./vitest.global-setup.ts', import.meta.url).pathname;

export interface ExpenseProjectOptions {
  /** The project's name (the root config's `unit`, `integration`, `slow`; a package's own config: none). */
  name?: string;
  exclude?: string[];
  /** Whether its tests start databases (then the run builds the migrated templates first); default true. */
  databases?: boolean;
  /**
   * Whether each file gets fresh modules (default true). Unit and integration files share no module state worth
   * isolating (caches are keyed by database or dialect, no test patches globals or leaves process.env changed),
   * and importing the server, the guard and the wire schemas again for each file was a fifth of the CPU of a run.
   */
  isolate?: boolean;
}

/** The vitest settings every project shares: workspace packages read from source. */
export function expenseProject(
  include = ['test/**/*.test.ts'],
  options: ExpenseProjectOptions = {},
): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: ['@expense/source'] },
    ssr: { resolve: { conditions: ['@expense/source'] } },
    test: {
      ...(options.name ? { name: options.name } : {}),
      include,
      exclude: ['**/node_modules/**', ...(options.exclude ?? [])],
      isolate: options.isolate ?? true,
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // expect.poll waits for a state (a row saved, an editor closed), not for a speed: on a loaded 2-core machine
      // one round trip through a browser, the proxy and the embedded engine passed the default second.
      expect: { poll: { timeout: 15_000 } },
      globalSetup: options.databases === false ? [] : [GLOBAL_SETUP],
    },
  });
}
