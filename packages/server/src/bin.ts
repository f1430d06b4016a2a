#!/usr/bin/env node
import { Command, Option } from 'commander';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createServer } from './app.js';
import { describeCommandFailure, registerBackupCommands } from './features/backup/commands.js';
import { registerFxCommands } from './features/fx/index.js';
import { registerMigrateCommand } from './features/migrate/index.js';
import {
  CONFIG_ENV,
  configFromEnv,
  databaseOptions,
  parseConfig,
  type ServerConfigInput,
} from './platform/config/config.js';
import { DataDirInUseError, DEFAULT_IN_USE_HINT } from './platform/storage/data-dir-lock.js';
import { openDatabase } from './platform/storage/index.js';

/** Flags of `start` and `migrate`; each defaults to its environment variable. */
const FLAGS: { key: keyof typeof CONFIG_ENV; flag: string; description: string }[] = [
  { key: 'host', flag: '--host <address>', description: 'bind address' },
  { key: 'port', flag: '--port <port>', description: 'port (0 picks a free one)' },
  {
    key: 'publicUrl',
    flag: '--public-url <url>',
    description: 'public origin ({base_url} is this plus /v1)',
  },
  { key: 'authUrl', flag: '--auth-url <url>', description: 'sign-in origin' },
  {
    key: 'databaseUrl',
    flag: '--database-url <url>',
    description: 'postgres://... or memory:// (default: embedded in --data-dir)',
  },
  {
    key: 'databaseDirectUrl',
    flag: '--database-direct-url <url>',
    description: 'direct postgres://... for migrations and LISTEN when --database-url is a pooler',
  },
  { key: 'dataDir', flag: '--data-dir <dir>', description: "the embedded database's directory" },
  { key: 'smtpUrl', flag: '--smtp-url <url>', description: 'send mail through this SMTP server' },
  { key: 'mailFrom', flag: '--mail-from <address>', description: 'sender of sign-in mails' },
  {
    key: 'mailOutbox',
    flag: '--mail-outbox <dir>',
    description: 'also write every mail as a JSON file here',
  },
  { key: 'ratePerSecond', flag: '--rate-per-second <n>', description: 'requests per second per key' },
  { key: 'ratePerDay', flag: '--rate-per-day <n>', description: 'requests per day per key' },
  {
    key: 'maxInflightPerKey',
    flag: '--max-inflight-per-key <n>',
    description: 'SQL requests in flight per key',
  },
  {
    key: 'maxInflightPerUser',
    flag: '--max-inflight-per-user <n>',
    description: 'SQL requests in flight per user',
  },
  {
    key: 'embeddedMaxMemoryMb',
    flag: '--embedded-max-memory-mb <n>',
    description: "restart the embedded engine's worker between requests past this much memory (MiB)",
  },
  {
    key: 'requestTimeoutMs',
    flag: '--request-timeout-ms <ms>',
    description: 'the whole request (headers and body) must arrive within this time',
  },
  {
    key: 'connectionTimeoutMs',
    flag: '--connection-timeout-ms <ms>',
    description: "a new connection must send its first request's headers within this time",
  },
  {
    key: 'backupDir',
    flag: '--backup-dir <dir>',
    description: 'embedded engine: write scheduled backups here',
  },
  { key: 'backupEvery', flag: '--backup-every <duration>', description: 'how often (e.g. 24h, 30m)' },
  { key: 'backupKeep', flag: '--backup-keep <n>', description: 'scheduled backups kept (the newest)' },
  { key: 'redisUrl', flag: '--redis-url <url>', description: 'keep rate-limit counters in Redis' },
  { key: 'logLevel', flag: '--log-level <level>', description: 'pino level' },
  { key: 'fxSourceUrl', flag: '--fx-source-url <url>', description: 'where FX rates are downloaded from' },
  { key: 'fxDays', flag: '--fx-days <n>', description: 'days the daily FX table keeps before the last rate' },
];

function addConfigFlags(command: Command): Command {
  for (const { key, flag, description } of FLAGS) {
    command.addOption(new Option(flag, description).env(CONFIG_ENV[key]));
  }
  return command;
}

/** Flags (which already fall back to their variables) over the remaining variables, e.g. NODE_ENV. */
function configFrom(options: Record<string, unknown>): ServerConfigInput {
  const input: Record<string, unknown> = { ...configFromEnv() };
  for (const { key } of FLAGS)
    if (options[key] !== undefined && options[key] !== '') input[key] = options[key];
  if (options.fxSync === true) input.fxSync = true;
  return input as ServerConfigInput;
}

function fail(error: unknown): never {
  process.stderr.write(describeCommandFailure(error));
  process.exit(1);
}

async function start(options: Record<string, unknown>): Promise<void> {
  const input = configFrom(options);
  const config = parseConfig(input);
  // Log lines leave through an asynchronous buffer (a synchronous write per line costs ~55 µs a request);
  // every exit below flushes it first.
  const logStream = pino.destination({ dest: 1, sync: false });
  const exit = (code: number): never => {
    try {
      logStream.flushSync();
    } catch {
      // stdout already gone (a closed pipe): nothing left to flush to
    }
    process.exit(code);
  };
  const app: FastifyInstance = await createServer(config, { logStream });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  const publicUrl = config.derivedUrls.publicUrl
    ? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
    : config.publicUrl;
  process.stdout.write(`expense-server: serving ${publicUrl}/v1 (port ${port})\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: no new connections; finishing the requests in flight');
    // Requests in flight get up to the SQL deadline (25 s) plus a margin; then the process exits anyway.
    const timer = setTimeout(() => {
      app.log.error('requests still running after the deadline; exiting');
      exit(1);
    }, 30_000);
    timer.unref();
    // Keep-alive connections of requests that were in flight become idle only after their answer; close them
    // as they do, or the server would wait for the clients' keep-alive timeout.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    sweep.unref();
    app.close().then(
      () => exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping');
        exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

async function migrate(options: Record<string, unknown>): Promise<void> {
  const config = parseConfig(configFrom(options));
  const db = await openDatabase(databaseOptions(config));
  await db.close();
  process.stdout.write('expense-server: migrations applied\n');
}

export function buildProgram(): Command {
  const program = new Command('expense-server')
    .description('The reference expense API server.')
    .showHelpAfterError();
  addConfigFlags(program.command('start').description('apply migrations and serve the API'))
    .option('--fx-sync', `download FX rates on start and then daily (env: ${CONFIG_ENV.fxSync}=1)`)
    .action((opts) => start(opts).catch(fail));
  addConfigFlags(program.command('migrate').description('apply the database migrations and exit')).action(
    (opts) => migrate(opts).catch(fail),
  );
  registerFxCommands(program, {
    addOptions: addConfigFlags,
    config: () => parseConfig(configFrom({})),
    openDatabase: async (opts) => {
      const config = parseConfig(configFrom(opts));
      return openDatabase(databaseOptions(config)).catch((error: unknown) => {
        if (!(error instanceof DataDirInUseError)) throw error;
        throw new DataDirInUseError(
          error.dataDir,
          error.holder,
          `${DEFAULT_IN_USE_HINT(error.holder)} A running embedded server gets its rates with --fx-sync (EXPENSE_FX_SYNC=1): restart it so.`,
        );
      });
    },
  });
  registerBackupCommands(program, { addOptions: addConfigFlags, configFrom });
  registerMigrateCommand(program, { configFrom });
  return program;
}

buildProgram().parseAsync(process.argv).catch(fail);
