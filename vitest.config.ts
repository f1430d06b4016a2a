import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { engineSelected } from './packages/test-kit/src/engines.js';
import ExpenseSequencer from './scripts/vitest-sequencer.js';
import { expenseProject } from './vitest.project.js';

// Four projects, all run by `pnpm test` (and CI); `pnpm test:quick` runs unit and integration on PGlite only
// (docs/testing.md). A new test file is integration unless listed here or named e2e-*.

/** Files that need no database, server, browser or other process. */
const UNIT = [
  // check/ but for the two suites that run on databases
  'packages/sql-guard/test/check/!(engines|resolution.property).test.ts',
  'packages/wire/test/**/*.test.ts',
  'packages/mcp/test/**/*.test.ts',
  'packages/import/test/**/*.test.ts',
  'packages/cli/src/{api/test/api-routes,output/test/cli-words,output/test/output,http/test/exit-codes,sql/test/paging,sql/test/statements,checks/test/wire-checks,import/test/import-fields}.test.ts',
  'packages/cli/src/commands/{workspaces/test/find-workspace,workspaces/test/workspace-prefix,report/test/report-table,schema/test/rules}.test.ts',
  'packages/test-kit/test/{call,system-dependency,templates}.test.ts',
  'packages/server/src/platform/http/test/wire-codes.test.ts',
  'packages/server/src/platform/storage/test/fair-queue.test.ts',
  'packages/server/src/platform/clock/test/clock.test.ts',
  'packages/server/src/platform/ratelimit/test/{client-address,key-limits}.test.ts',
  'packages/server/src/features/{fx/test/parse,sql/test/check-cache,mcp/test/legacy-routing}.test.ts',
  'packages/server/src/features/auth/test/consent-check.test.ts',
  'packages/server/src/features/reports/test/{report-data,report-sql}.test.ts',
];
/**
 * Minutes each, or what not every machine has: SIGKILL, disk growth, npm install, a browser, a client process per
 * call (the MCP Inspector's CLI).
 */
const SLOW = [
  'packages/server/src/features/changes/test/history-sigkill.test.ts',
  'packages/server/src/platform/inflight/test/disk-growth.test.ts',
  'packages/cli/test/e2e-install.test.ts',
  'packages/server/src/features/console/test/{browser,browser-portability,browser-import-mapping,journey,browser-partner}.test.ts',
  'packages/server/src/features/mcp/test/clients-inspector.test.ts',
];

/**
 * Whole-process sessions: the built CLI run as a person runs it (`e2e-*.test.ts`), each command a process of its
 * own against a live server. Chosen by name, like a command's own tests beside it.
 */
const E2E = ['packages/cli/{src,test}/**/e2e-*.test.ts', 'packages/cli/test/e2e.test.ts'];

/** Integration suites on PostgreSQL only: left out when EXPENSE_TEST_ENGINES leaves PostgreSQL out (test:quick). */
const POSTGRES_ONLY = [
  'packages/test-kit/test/postgres.test.ts',
  'packages/server/src/platform/storage/test/pooler/*.test.ts',
  'packages/server/src/features/{oauth/test/processes,changes/test/history-lock-order,changes/test/history-purge-locks}.test.ts',
  'packages/server/src/platform/inflight/test/inflight-redis.test.ts',
  'packages/server/src/platform/http/test/connection-failures.test.ts',
  'packages/server/src/features/keys/test/{create-key,revocation,key-kinds}.test.ts',
  'packages/server/src/features/console/test/session.test.ts',
  'packages/server/src/platform/storage/test/function-grants-owner.test.ts',
  'packages/server/src/features/migrate/test/migrate-to.test.ts',
  'packages/sql-guard/test/check/resolution.property.test.ts',
  'packages/sql-guard/test/run/planner-bombs.test.ts',
  'packages/sql-guard/test/adopt/real-schemas.test.ts',
  'examples/{guard-pg,guard-shop,guard-saas}/index.test.ts',
];

const ALL = [
  'packages/*/test/**/*.test.ts',
  'packages/{server,cli}/src/**/*.test.ts',
  'examples/*/*.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      expenseProject(UNIT, { name: 'unit', databases: false, isolate: false }),
      expenseProject(ALL, {
        name: 'integration',
        isolate: false,
        exclude: [...UNIT, ...SLOW, ...E2E, ...(engineSelected('postgres') ? [] : POSTGRES_ONLY)],
      }),
      expenseProject(E2E, { name: 'e2e', isolate: false, exclude: SLOW }),
      expenseProject(SLOW, { name: 'slow' }),
    ],
    // One file more than the cores: most files spend their time waiting on servers, databases and processes
    // (vitest's own default, one fewer than the cores, runs a 2-core machine's files one at a time).
    maxWorkers: availableParallelism() + 1,
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
    sequence: { sequencer: ExpenseSequencer },
  },
});
