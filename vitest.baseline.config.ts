import { defineConfig } from 'vitest/config';
import { expenseProject } from './vitest.project.js';
export default defineConfig({ test: { projects: [expenseProject(['packages/*/test/**/*.test.ts'], { name: 'baseline', databases: false })], reporters: ['default', './scripts/vitest-summary-reporter.ts'] } });
