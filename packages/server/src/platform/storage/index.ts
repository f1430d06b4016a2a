export type {
  Database,
  Queryable,
  UserContext,
  UserScope,
  UserTransactionOptions,
} from './database.js';
export type { StorageLogger } from './engine.js';
export {
  DatabaseClosedError,
  DatabaseUnavailableError,
  InvalidContextError,
  MigrationError,
  MutationOutcomeUnknownError,
  StartDeadlineError,
  StorageError,
  type StorageErrorCode,
  WorkspaceNotResolvedError,
} from './errors.js';
export {
  loadMigrations,
  type MigrateResult,
  type Migration,
  migrate,
  migrationsDirectory,
} from './migrate.js';
export {
  FX_ROLE,
  INTERNAL_SCHEMA,
  SQL_ROLE,
  USER_ID_SETTING,
  USER_RELATIONS,
  type UserRelationName,
  WORKSPACE_ID_SETTING,
} from './names.js';
export { DEFAULT_DATA_DIR, isPostgresUrl, type OpenDatabaseConfig, openDatabase } from './open.js';
export { describeRelations, type RelationColumn, type RelationDescription } from './schema-catalog.js';
