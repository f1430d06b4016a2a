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
} from './config/config.js';
export type { Database } from './storage/database.js';
