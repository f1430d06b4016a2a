import { z } from 'zod';
import { FX_CONFIG_ENV, FxConfigSchema } from './fx.js';

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
/** An HTTP time limit: from 100 ms (less cuts ordinary requests; it also catches seconds given as ms) to an hour. */
const timeLimitMs = z.coerce.number().int().min(100).max(3_600_000);
/** A duration such as `30m` or `24h` (durationMs). */
const DURATION = /^\s*(\d+)\s*(s|m|h|d)\s*$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `24h`, ... in milliseconds (EXPENSE_BACKUP_EVERY). */
export function durationMs(text: string): number {
  const m = DURATION.exec(text);
  if (!m) throw new ConfigError(`not a duration: ${text} (a number and a unit, e.g. 30m or 24h)`);
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms <= 0) throw new ConfigError(`not a positive duration: ${text}`);
  return ms;
}

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** The server's configuration: the variables of config.md, with their defaults. */
export const ServerConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: port.default(8787),
    /** Public origin; defaults to `http://{host}:{port}`. `{base_url}` is this plus `/v1`. */
    publicUrl: optionalString.pipe(z.url().optional()),
    /** Sign-in origin; defaults to the public origin. */
    authUrl: optionalString.pipe(z.url().optional()),
    /** Unset: embedded PGlite in dataDir; `postgres://...`: a PostgreSQL server; `memory://`: in-memory PGlite. */
    databaseUrl: optionalString,
    /**
     * A direct PostgreSQL URL for migrations and LISTEN; default databaseUrl. With it, databaseUrl may be a
     * transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy).
     */
    databaseDirectUrl: optionalString,
    /** PostgreSQL: connections for user SQL per process (programmatic only, no variable). */
    databasePoolSize: positiveInt.default(10),
    /**
     * PostgreSQL: connections for the server's own work per process (key checks, sign-in, /me, workspaces,
     * idempotency records), never taken by user SQL (programmatic only, no variable).
     */
    databaseInternalPoolSize: positiveInt.default(4),
    dataDir: z.string().min(1).default('./.expense/data'),
    smtpUrl: optionalString,
    mailFrom: z.string().min(1).default('Expense <no-reply@localhost>'),
    mailOutbox: optionalString,
    ratePerSecond: positiveInt.default(10),
    ratePerDay: positiveInt.default(10_000),
    redisUrl: optionalString,
    /** Prefix of the rate-limit keys in Redis (several deployments, or test runs, may share one Redis). */
    redisKeyPrefix: z.string().min(1).default('expense'),
    /**
     * The whole request, headers and body, must arrive within this many ms of its first byte (408
     * request_timeout after). Receiving only: the time an answer takes (SQL, a stream) is not counted.
     */
    requestTimeoutMs: timeLimitMs.default(30_000),
    /**
     * A new connection must send its first request's headers within this many ms (and any request its headers
     * within this many ms of its first byte); at most requestTimeoutMs.
     */
    connectionTimeoutMs: timeLimitMs.default(10_000),
    /** Deadline of one SQL request in milliseconds (25 s; smaller values are for tests). */
    sqlDeadlineMs: positiveInt.default(25_000),
    /** SQL requests in flight at once per key and per user (too_many_concurrent_requests beyond). */
    maxInflightPerKey: positiveInt.default(2),
    maxInflightPerUser: positiveInt.default(4),
    /** Workspaces one user may own (limit_reached beyond). */
    maxWorkspacesPerUser: positiveInt.default(50),
    /** The largest export POST /workspaces/{id}/restore takes (payload_too_large beyond): 256 MiB. */
    restoreMaxBytes: positiveInt.default(256 * 1024 * 1024),
    /** Embedded engine: scheduled backups are written here (off when unset; docs/operations.md, Backups). */
    backupDir: optionalString,
    /** How often a scheduled backup is taken: a number and a unit (`30m`, `24h`; s, m, h, d). */
    backupEvery: z
      .string()
      .regex(DURATION, 'a number and a unit, e.g. 30m or 24h (s, m, h, d)')
      .default('24h'),
    /** Scheduled backups kept (the newest; older ones are deleted after each backup). */
    backupKeep: positiveInt.default(7),
    /** The embedded engine's worker is restarted between requests once the process's memory passes this (MiB). */
    embeddedMaxMemoryMb: positiveInt.default(1024),
    /**
     * Stored change history per workspace: at most this many bytes (SQL text, statements, row images as text)
     * and changes; a write past either drops the workspace's oldest changes (migration 0020).
     */
    changeHistoryMaxBytes: positiveInt.default(64 * 1024 * 1024),
    changeHistoryMaxChanges: positiveInt.max(2_000_000_000).default(100_000),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `production` refuses to start without smtpUrl. */
    nodeEnv: optionalString,
  })
  .extend(FxConfigSchema.shape)
  .strict();

/** What createServer accepts: every field optional. */
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;
/** The parsed configuration with defaults applied and URLs resolved (no trailing slash). */
export type ServerConfig = Omit<z.output<typeof ServerConfigSchema>, 'publicUrl' | 'authUrl'> & {
  publicUrl: string;
  authUrl: string;
  /** Which URLs were derived (not configured): they follow the bound port when port is 0. */
  derivedUrls: { publicUrl: boolean; authUrl: boolean };
};

/** Fields set only in the configuration object (createServer), without an environment variable. */
type ProgrammaticOnly = 'databasePoolSize' | 'databaseInternalPoolSize';

/** The environment variable behind each configuration field. */
export const CONFIG_ENV = {
  host: 'EXPENSE_HOST',
  port: 'EXPENSE_PORT',
  publicUrl: 'EXPENSE_PUBLIC_URL',
  authUrl: 'EXPENSE_AUTH_URL',
  databaseUrl: 'DATABASE_URL',
  databaseDirectUrl: 'DATABASE_DIRECT_URL',
  dataDir: 'EXPENSE_DATA_DIR',
  smtpUrl: 'SMTP_URL',
  mailFrom: 'EXPENSE_MAIL_FROM',
  mailOutbox: 'EXPENSE_MAIL_OUTBOX',
  ratePerSecond: 'EXPENSE_RATE_PER_SECOND',
  ratePerDay: 'EXPENSE_RATE_PER_DAY',
  redisUrl: 'REDIS_URL',
  redisKeyPrefix: 'EXPENSE_REDIS_KEY_PREFIX',
  requestTimeoutMs: 'EXPENSE_REQUEST_TIMEOUT_MS',
  connectionTimeoutMs: 'EXPENSE_CONNECTION_TIMEOUT_MS',
  sqlDeadlineMs: 'EXPENSE_SQL_DEADLINE_MS',
  maxInflightPerKey: 'EXPENSE_MAX_INFLIGHT_PER_KEY',
  maxInflightPerUser: 'EXPENSE_MAX_INFLIGHT_PER_USER',
  maxWorkspacesPerUser: 'EXPENSE_MAX_WORKSPACES_PER_USER',
  restoreMaxBytes: 'EXPENSE_RESTORE_MAX_BYTES',
  embeddedMaxMemoryMb: 'EXPENSE_EMBEDDED_MAX_MEMORY_MB',
  backupDir: 'EXPENSE_BACKUP_DIR',
  backupEvery: 'EXPENSE_BACKUP_EVERY',
  backupKeep: 'EXPENSE_BACKUP_KEEP',
  changeHistoryMaxBytes: 'EXPENSE_CHANGE_HISTORY_MAX_BYTES',
  changeHistoryMaxChanges: 'EXPENSE_CHANGE_HISTORY_MAX_CHANGES',
  logLevel: 'EXPENSE_LOG_LEVEL',
  nodeEnv: 'NODE_ENV',
  ...FX_CONFIG_ENV,
} as const satisfies Record<Exclude<keyof ServerConfigInput, ProgrammaticOnly>, string>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function trimOrigin(url: string): string {
  return url.replace(/\/+$/, '');
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Parses and resolves a configuration; throws ConfigError with every problem listed. */
export function parseConfig(input: ServerConfigInput = {}): ServerConfig {
  const result = ServerConfigSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      const env = CONFIG_ENV[key as keyof typeof CONFIG_ENV];
      return `${env ?? key}: ${i.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const c = result.data;
  if (c.connectionTimeoutMs > c.requestTimeoutMs) {
    throw new ConfigError(
      `invalid configuration: ${CONFIG_ENV.connectionTimeoutMs} (${c.connectionTimeoutMs}) must not exceed ${CONFIG_ENV.requestTimeoutMs} (${c.requestTimeoutMs}): the first request's headers are part of its whole request.`,
    );
  }
  if (!(Number(DURATION.exec(c.backupEvery)?.[1]) > 0)) {
    throw new ConfigError(`invalid configuration: ${CONFIG_ENV.backupEvery} must be more than 0.`);
  }
  const publicUrl = trimOrigin(c.publicUrl ?? `http://${hostForUrl(c.host)}:${c.port}`);
  return {
    ...c,
    publicUrl,
    authUrl: trimOrigin(c.authUrl ?? publicUrl),
    derivedUrls: { publicUrl: c.publicUrl === undefined, authUrl: c.authUrl === undefined },
  };
}

/** Reads the configuration from environment variables (unset and empty variables take the defaults). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfigInput {
  const input: Record<string, string> = {};
  for (const [key, name] of Object.entries(CONFIG_ENV)) {
    const value = env[name];
    if (value !== undefined && value !== '') input[key] = value;
  }
  return input as ServerConfigInput;
}

/** The URLs after listening: a public URL derived from host and port follows the port actually bound. */
export function resolveListenUrls(
  config: ServerConfig,
  boundPort: number,
): { publicUrl: string; authUrl: string } {
  if (!config.derivedUrls.publicUrl) return { publicUrl: config.publicUrl, authUrl: config.authUrl };
  const publicUrl = `http://${hostForUrl(config.host)}:${boundPort}`;
  return { publicUrl, authUrl: config.derivedUrls.authUrl ? publicUrl : config.authUrl };
}

/** What openDatabase needs from the configuration (the same for the server and the CLI commands). */
export function databaseOptions(config: ServerConfig): {
  databaseUrl: string | undefined;
  directUrl: string | undefined;
  dataDir: string;
  maxConnections: number;
  internalConnections: number;
  embeddedMaxMemoryMb: number;
} {
  return {
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    maxConnections: config.databasePoolSize,
    internalConnections: config.databaseInternalPoolSize,
    embeddedMaxMemoryMb: config.embeddedMaxMemoryMb,
  };
}
