import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/** The vitest settings every package and example shares: workspace packages read from source. */
export function expenseProject(include = ['test/**/*.test.ts']): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: ['@expense/source'] },
    ssr: { resolve: { conditions: ['@expense/source'] } },
    test: { include, testTimeout: 60_000, hookTimeout: 60_000 },
  });
}
