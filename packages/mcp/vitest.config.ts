import { expenseProject } from '../../vitest.project.js';

export default expenseProject();
