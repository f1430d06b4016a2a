export {
  type CreateServerOptions,
  createServer,
  type ExpensePluginOptions,
  expensePlugin,
  toNodeHandler,
} from './app.js';
export {
  CONFIG_ENV,
  ConfigError,
  configFromEnv,
  parseConfig,
  type ServerConfig,
  type ServerConfigInput,
  ServerConfigSchema,
} from './platform/config/config.js';
export type { Database } from './platform/storage/database.js';
