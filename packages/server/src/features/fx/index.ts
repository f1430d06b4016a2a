export {
  DEFAULT_FX_DAYS,
  ECB_SOURCE_URL,
  FX_CONFIG_ENV,
  type FxConfig,
  type FxConfigInput,
  FxConfigSchema,
  fxConfigFromEnv,
} from '../../platform/config/fx.js';
export { type FxCommandDeps, registerFxCommands } from './cli.js';
export { FX_FRESH_RATES, FxCoverage, type FxCoverageRange } from './coverage.js';
export { type RebuildOptions, type RebuildResult, rebuildFxDaily } from './daily.js';
export {
  type ImportOptions,
  type ImportResult,
  type ImportSummary,
  importFxText,
  importRates,
} from './import.js';
export type { FxLogger } from './logger.js';
export { parseEcbFile } from './parse.js';
export { FX_ROLE } from './role.js';
export { FX_SEED_CSV, type SeedOptions, seedFxIfEmpty } from './seed.js';
export {
  type FxScheduler,
  type FxSchedulerOptions,
  type SyncOptions,
  type SyncResult,
  startFxScheduler,
  syncFx,
} from './sync.js';
export type { FxFileError, ParsedRates, PublishedRate } from './types.js';
