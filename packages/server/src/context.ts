import type { KeyVerifier, Principal } from './features/auth/api-keys.js';
import type { KeyStore } from './features/auth/key-store.js';
import type { OtpService } from './features/auth/otp.js';
import type { FxCoverage } from './features/fx/coverage.js';
import type { InvitationLimiters } from './features/invitations/limits.js';
import type { ConfirmationTokens } from './features/sql/confirm-tokens.js';
import type { SqlService } from './features/sql/service.js';
import type { ServerConfig } from './platform/config/config.js';
import type { ActionBuilder } from './platform/http/actions.js';
import type { IdempotencyStore } from './platform/idempotency/store.js';
import type { InflightLimiter } from './platform/inflight/index.js';
import type { Mailer } from './platform/mail/mailer.js';
import type { Limiter } from './platform/ratelimit/limits.js';
import type { Database } from './platform/storage/database.js';

/** What every route plugin receives: configuration, the database, and the services built on it. */
export interface AppContext {
  config: ServerConfig;
  db: Database;
  actions: ActionBuilder;
  keys: KeyVerifier;
  /** Ends keys and makes every process forget them (the only way keys are revoked). */
  keyStore: KeyStore;
  otp: OtpService;
  /** Sign-in codes go through `otp`; the invitation mail goes out through this. */
  mailer: Mailer;
  /** Per-key request limits (per second, per day). */
  keyLimits: Limiter[];
  /** Unknown or revoked well-formed ApiKeys per client address (platform/ratelimit/invalid-keys.ts). */
  invalidKeyLimit: Limiter;
  /** New invitations per invited address and per workspace (features/invitations/limits.ts). */
  invitationLimits: InvitationLimiters;
  /** The first and newest ECB dates held (cached; refreshed after each FX worker run). */
  fxCoverage: FxCoverage;
  /** Confirmation tokens of dry runs, shared by every instance through the database (confirmations/). */
  confirmations: ConfirmationTokens;
  /** Idempotency-Key records of every write route (one store; its expired records purged by the app). */
  idempotency: IdempotencyStore;
  /** SQL requests (and reverts) in flight per key and per user (inflight/). */
  inflight: InflightLimiter;
  /** The SQL endpoints' one handler (guard, checks' cache, pipeline, write command), built once for the app. */
  sql: SqlService;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the ApiKey hook (onRequest) on authenticated routes. */
    principal?: Principal;
  }
}
