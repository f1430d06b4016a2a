/** `expense-server migrate-to`: the embedded engine's data moved to PostgreSQL (docs/operations.md). */
export { type Catalog, checkSameSchema, copyOrder, readCatalog } from './catalog.js';
export {
  describeFailure,
  type MigrateCommandDeps,
  type MigrateToOptions,
  migrateTo,
  registerMigrateCommand,
  summary,
} from './command.js';
export {
  type CopyOptions,
  copyDatabase,
  type MigrateReport,
  type TableCopy,
  type WorkspaceCheck,
} from './copy.js';
export { MigrateError, type MigrateErrorCode, redactUrl } from './errors.js';
