export { expenseDialect } from './dialect/expense.js';
export { createGuard } from './guard.js';
export { defaultLimits } from './limits.js';
export { GuardCheckError, GuardRunError } from './run/errors.js';
export { pinnedOutputSettings, pinnedSettingsCheck, type SessionHints } from './run/wrapper-sql.js';
export type * from './types.js';
export { GUARD_ERROR_CODES } from './types.js';
