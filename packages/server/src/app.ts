import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuardOptions } from '@expense/sql-guard';
import { AGENT_PREFIX, API_PREFIX } from '@expense/wire';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { DestinationStream } from 'pino';
import type { AppContext } from './context.js';
import { meRoutes } from './features/account/routes.js';
import { DEFAULT_KEY_CACHE, type KeyCacheOptions, KeyVerifier } from './features/auth/api-keys.js';
import { apiKeyAuth } from './features/auth/authenticate.js';
import { KeyStore } from './features/auth/key-store.js';
import { OtpService } from './features/auth/otp.js';
import { authRoutes } from './features/auth/routes.js';
import { embeddedBackups } from './features/backup/index.js';
import { changeRoutes } from './features/changes/routes.js';
import { consoleRoutes } from './features/console/index.js';
import { guideRoutes } from './features/discovery/guide.js';
import { healthRoutes } from './features/discovery/health.js';
import { DISCOVERY_INSTRUCTIONS } from './features/discovery/instructions.js';
import { openApiRoutes } from './features/discovery/openapi.js';
import { discoveryData, discoveryRoutes, discoverySchema, mcpAction } from './features/discovery/routes.js';
import { FxCoverage } from './features/fx/coverage.js';
import { seedFxIfEmpty, startFxScheduler } from './features/fx/index.js';
import { importRoutes } from './features/imports/routes.js';
import { createInvitationLimits } from './features/invitations/limits.js';
import { invitationRoutes } from './features/invitations/routes.js';
import { createKeyRoutes } from './features/keys/create.js';
import { keyRoutes } from './features/keys/routes.js';
import { mcpRoutes } from './features/mcp/index.js';
import { memberRoutes } from './features/members/routes.js';
import { oauthRoutes, REGISTRATION_LIMIT } from './features/oauth/routes/index.js';
import { portabilityRoutes } from './features/portability/routes.js';
import { reportRoutes } from './features/reports/routes.js';
import { schemaRoutes } from './features/schema/routes.js';
import { ConfirmationTokens } from './features/sql/confirm-tokens.js';
import { sqlRoutes } from './features/sql/routes.js';
import { createSqlService } from './features/sql/service.js';
import { workspaceRoutes } from './features/workspaces/routes.js';
import {
  ConfigError,
  databaseOptions,
  parseConfig,
  resolveListenUrls,
  type ServerConfig,
  type ServerConfigInput,
} from './platform/config/config.js';
import { ActionBuilder, type Urls } from './platform/http/actions.js';
import { success } from './platform/http/envelope.js';
import { BODY_LIMIT, httpBasics, newRequestId } from './platform/http/http-basics.js';
import { loggerOptions } from './platform/http/logger.js';
import { clientErrorHandler, frameworkErrorHandler } from './platform/http/socket-errors.js';
import { httpTimeouts } from './platform/http/timeouts.js';
import { writeIdempotency } from './platform/idempotency/write.js';
import { InflightLimiter } from './platform/inflight/index.js';
import { createMailer } from './platform/mail/mailer.js';
import { createInvalidKeyLimit } from './platform/ratelimit/invalid-keys.js';
import { createKeyLimits, RateLimits } from './platform/ratelimit/limits.js';
import type { Database } from './platform/storage/database.js';
import { openDatabase } from './platform/storage/index.js';
import { KEY_REVOKED_CHANNEL } from './platform/storage/names.js';

export interface ExpensePluginOptions {
  /** The configuration object (parsed or not); no environment variable is read. */
  config?: ServerConfigInput | ServerConfig;
  /** An open database to use instead of opening one from the configuration; the caller closes it. */
  database?: Database;
  /** Tuning of the verified-key cache (tests and benchmarks). */
  keyCache?: Partial<KeyCacheOptions>;
  /** How the SQL guard checks long texts off the main thread (tests and benchmarks; the guard's defaults otherwise). */
  sqlCheckPool?: GuardOptions['checkPool'];
  /** The origins actions are built from; createServer shares them with its framework-level error handlers. */
  urls?: Urls;
  /**
   * Tests only: fetch OAuth client ID metadata documents from loopback and private addresses, trusting this
   * certificate authority (a local HTTPS server). Never set in production.
   */
  oauthClientMetadata?: { allowPrivateAddresses: true; ca?: string };
}

function isParsed(config: ServerConfigInput | ServerConfig): config is ServerConfig {
  return 'derivedUrls' in config;
}

/**
 * The whole API as an encapsulated Fastify plugin: register it in another Fastify app (with a `prefix` if
 * wanted, then make publicUrl/authUrl include that prefix).
 */
export const expensePlugin: FastifyPluginAsync<ExpensePluginOptions> = async (app, options) => {
  const config = isParsed(options.config ?? {})
    ? (options.config as ServerConfig)
    : parseConfig(options.config);
  if (config.nodeEnv === 'production' && !config.smtpUrl) {
    throw new ConfigError(
      'SMTP_URL is required with NODE_ENV=production (the console mail transport logs sign-in codes).',
    );
  }
  const db = options.database ?? (await openDatabase({ ...databaseOptions(config), logger: app.log }));
  // A new embedded installation can convert currencies at once: it starts with a bundled ECB excerpt.
  if (!options.database && db.engine === 'pglite') await seedFxIfEmpty(db, { windowDays: config.fxDays });
  if (!options.database) await embeddedBackups(app, config, db);
  const fxCoverage = new FxCoverage(db);
  const confirmations = new ConfirmationTokens(db);
  const fx = startFxScheduler({ db, logger: app.log, config, onRun: () => fxCoverage.invalidate() });
  const urls: Urls = options.urls ?? { publicUrl: config.publicUrl, authUrl: config.authUrl };
  const actions = new ActionBuilder(urls);
  const limits = new RateLimits(config.redisUrl, config.redisKeyPrefix);
  const mailer = createMailer(
    { smtpUrl: config.smtpUrl, from: config.mailFrom, outbox: config.mailOutbox },
    app.log,
  );
  if (mailer.transport === 'console') {
    app.log.warn(
      'mail: no SMTP_URL, so sign-in mails (and their codes) are written to this log (development only)',
    );
  }
  const keys = new KeyVerifier(db, { ...DEFAULT_KEY_CACHE, ...options.keyCache }, (error) =>
    app.log.warn({ err: error }, 'could not record last_used_at'),
  );
  const idempotency = writeIdempotency(db, config.sqlDeadlineMs);
  // At most maxInflightPerKey / maxInflightPerUser SQL requests in flight (shared through Redis when set).
  const inflight = new InflightLimiter({
    perKey: config.maxInflightPerKey,
    perUser: config.maxInflightPerUser,
    redisUrl: config.redisUrl,
    redisKeyPrefix: config.redisKeyPrefix,
    onRedisError: (error) => app.log.warn({ err: error }, 'in-flight limits: Redis did not answer'),
  });
  const sql = await createSqlService({
    db,
    actions,
    idempotency,
    inflight,
    fxCoverage,
    confirmations,
    deadlineMs: config.sqlDeadlineMs,
    ...(options.sqlCheckPool ? { checkPool: options.sqlCheckPool } : {}),
    log: app.log,
  });
  app.addHook('onClose', () => sql.close());
  const ctx: AppContext = {
    config,
    db,
    actions,
    keys,
    keyStore: new KeyStore(db, keys),
    otp: new OtpService(db, mailer, limits),
    mailer,
    keyLimits: createKeyLimits(limits, config),
    invalidKeyLimit: createInvalidKeyLimit(limits),
    invitationLimits: createInvitationLimits(limits),
    fxCoverage,
    confirmations,
    idempotency,
    inflight,
    sql,
  };
  const purgeIdempotency = setInterval(() => {
    ctx.idempotency
      .purgeExpired()
      .catch((error: unknown) => app.log.warn({ err: error }, 'idempotency purge'));
  }, 10 * 60_000);
  purgeIdempotency.unref();
  app.addHook('onClose', async () => clearInterval(purgeIdempotency));
  // A key revoked by another process (PostgreSQL): forget it at once rather than when its cache entry expires.
  const stopListening = await db.listen?.(KEY_REVOKED_CHANNEL, {
    notify: (connectionId) => ctx.keys.invalidate({ connectionId }),
    reset: () => ctx.keys.invalidateAll(),
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(httpBasics, { actions });
  await app.register(apiKeyAuth, { ctx });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Expense API',
        version: 'v1',
        description:
          'Expenses and budgets in PostgreSQL, read and changed with a restricted SQL dialect under row-level security. Start at GET /v1/.',
      },
      components: {
        securitySchemes: {
          ApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The value `ApiKey <key>`.',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  app.get('/', { schema: discoverySchema }, async () =>
    success(discoveryData(ctx), DISCOVERY_INSTRUCTIONS, [
      actions.sendCode(),
      actions.verifyCode(),
      mcpAction(ctx),
    ]),
  );
  await app.register(
    async (v1) => {
      await v1.register(discoveryRoutes(ctx));
      await v1.register(guideRoutes());
      await v1.register(openApiRoutes(ctx, () => app.swagger() as never, app.prefix));
      await v1.register(healthRoutes(ctx));
      await v1.register(meRoutes(ctx));
      await v1.register(workspaceRoutes(ctx));
      await v1.register(memberRoutes(ctx));
      await v1.register(invitationRoutes(ctx));
      await v1.register(keyRoutes(ctx));
      await v1.register(createKeyRoutes(ctx));
      await v1.register(schemaRoutes(ctx));
      await v1.register(sqlRoutes(ctx));
      await v1.register(importRoutes(ctx));
      await v1.register(changeRoutes(ctx));
      await v1.register(reportRoutes(ctx));
      await v1.register(portabilityRoutes(ctx));
    },
    { prefix: API_PREFIX },
  );
  await app.register(authRoutes(ctx), { prefix: AGENT_PREFIX });
  await app.register(
    mcpRoutes(ctx, {
      root: () => app,
      apiBasePath: `${app.prefix}${API_PREFIX}`,
    }),
  );
  // The browser's routes: the console's session cookie is parsed and written (@fastify/cookie) here only, not
  // on the API's requests. A host app that registered the plugin itself keeps its own.
  await app.register(async (browser) => {
    if (!browser.hasRequestDecorator('cookies')) await browser.register(fastifyCookie);
    await browser.register(
      oauthRoutes(ctx, {
        metadataFetch: options.oauthClientMetadata ?? { allowPrivateAddresses: false },
        registrationLimit: limits.create(REGISTRATION_LIMIT),
      }),
    );
    await browser.register(consoleRoutes(ctx, () => app));
  });

  app.addHook('onListen', async () => {
    const address = app.server.address() as AddressInfo | null;
    if (address && typeof address === 'object') Object.assign(urls, resolveListenUrls(config, address.port));
  });
  app.addHook('onClose', async () => {
    await stopListening?.();
    await fx.stop();
    mailer.close();
    await limits.close();
    await ctx.inflight.close();
    if (!options.database) await db.close();
  });
};

export interface CreateServerOptions extends Omit<ExpensePluginOptions, 'config'> {
  /** Where the JSON log lines go (default stdout). */
  logStream?: DestinationStream;
  /** Trust X-Forwarded-* from a proxy in front (client addresses for rate limits). */
  trustProxy?: boolean | string | string[];
}

/**
 * The expense API as a Fastify app, ready but not listening: call `listen`, `inject`, or mount it with
 * `toNodeHandler`. Closing it closes the database it opened.
 */
export async function createServer(
  config: ServerConfigInput | ServerConfig = {},
  options: CreateServerOptions = {},
): Promise<FastifyInstance> {
  const parsed = isParsed(config) ? config : parseConfig(config);
  const urls: Urls = { publicUrl: parsed.publicUrl, authUrl: parsed.authUrl };
  const actions = new ActionBuilder(urls);
  const app = Fastify({
    logger: loggerOptions({ level: parsed.logLevel, stream: options.logStream }),
    bodyLimit: BODY_LIMIT,
    genReqId: newRequestId,
    frameworkErrors: frameworkErrorHandler(actions),
    clientErrorHandler: clientErrorHandler(actions),
    return503OnClosing: true,
    ...httpTimeouts(parsed),
    // Opening the database applies migrations; on a busy machine PGlite needs more than the 10 s default.
    pluginTimeout: 120_000,
    trustProxy: options.trustProxy ?? false,
  });
  const { logStream: _l, trustProxy: _t, ...pluginOptions } = options;
  await app.register(expensePlugin, { ...pluginOptions, config: parsed, urls });
  await app.ready();
  return app;
}

/** A Node `http` request handler for a ready app, for mounting under any Node server. */
export function toNodeHandler(app: FastifyInstance): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => app.routing(req, res);
}
