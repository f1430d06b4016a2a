import type { AppContext } from '../../../context.js';
import type { Limiter } from '../../../platform/ratelimit/limits.js';
import type { MetadataFetchOptions } from '../client-metadata.js';
import type { OAuthClient } from '../store.js';

export interface OAuthOptions {
  metadataFetch: MetadataFetchOptions;
  /** Client registrations per client address (REGISTRATION_LIMIT). */
  registrationLimit: Limiter;
}

/** What every OAuth route file is given (routes/index.ts builds it once). */
export interface OAuthContext {
  ctx: AppContext;
  options: OAuthOptions;
  /** The authorization server's issuer: the server's public URL. */
  issuer(): string;
  /** The one resource tokens are issued for: the server's /mcp. */
  resource(): string;
  findClient(clientId: string): Promise<OAuthClient | undefined>;
}
