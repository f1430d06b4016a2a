import { expenseProject } from '../../vitest.project.js';

export default expenseProject(['test/**/*.test.ts'], { databases: false });
