export { expenseDialect } from './dialect/expense.js';
export { createGuard, DEFAULT_OFF_THREAD_LENGTH } from './guard.js';
export { defaultLimits } from './limits.js';
export { GuardBusyError } from './pool/check-pool.js';
export { GuardCheckError, GuardRunError } from './run/errors.js';
export { pinnedOutputSettings, pinnedSettingsCheck } from './run/wrapper-sql.js';
export type * from './types.js';
export { GUARD_ERROR_CODES, RUN_ERROR_CODES } from './types.js';
