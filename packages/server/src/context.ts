import type { KeyVerifier, Principal } from './auth/api-keys.js';
import type { KeyStore } from './auth/key-store.js';
import type { OtpService } from './auth/otp.js';
import type { Limiter } from './auth/rate-limits.js';
import type { ServerConfig } from './config/config.js';
import type { ConfirmationTokens } from './confirmations/tokens.js';
import type { FxCoverage } from './fx/coverage.js';
import type { ActionBuilder } from './http/actions.js';
import type { InflightLimiter } from './inflight/index.js';
import type { Mailer } from './mail/mailer.js';
import type { InvitationLimiters } from './ratelimit/invitation-limits.js';
import type { Database } from './storage/database.js';

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
  /** Unknown or revoked well-formed ApiKeys per client address (ratelimit/invalid-keys.ts). */
  invalidKeyLimit: Limiter;
  /** New invitations per invited address and per workspace (ratelimit/invitation-limits.ts). */
  invitationLimits: InvitationLimiters;
  /** The first and newest ECB dates held (cached; refreshed after each FX worker run). */
  fxCoverage: FxCoverage;
  /** Confirmation tokens of dry runs, shared by every instance through the database (confirmations/). */
  confirmations: ConfirmationTokens;
  /** SQL requests (and reverts) in flight per key and per user (inflight/). */
  inflight: InflightLimiter;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the ApiKey hook (onRequest) on authenticated routes. */
    principal?: Principal;
  }
}
