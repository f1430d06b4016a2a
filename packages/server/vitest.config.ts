import { expenseProject } from '../../vitest.project.js';

// Tests sit beside what they test: each feature's and platform module's test/ folder.
export default expenseProject(['src/**/*.test.ts']);
