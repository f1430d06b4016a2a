import { timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../auth/secrets.js';
import { OAuthError } from './errors.js';
import type { AuthMethod, OAuthClient } from './store.js';

export interface ClientCredentials {
  clientId: string | undefined;
  secret: string | undefined;
  method: AuthMethod;
}

const BASIC = /^Basic\s+(\S+)$/i;
const malformed = () => new OAuthError('invalid_client', 'The Basic authorization header is malformed.', 401);

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw malformed();
  }
}

/**
 * The client's credentials from the Basic header (RFC 6749 §2.3.1: the form-urlencoded id and secret joined by
 * a colon, in base64) or else from the body. A header that is not of that form is `invalid_client`.
 */
export function clientCredentials(
  authorization: string | undefined,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): ClientCredentials {
  const basic = BASIC.exec(authorization ?? '');
  if (!basic) {
    return {
      clientId: body.client_id,
      secret: body.client_secret,
      method: body.client_secret ? 'client_secret_post' : 'none',
    };
  }
  const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed();
  return {
    clientId: decodeComponent(decoded.slice(0, colon)),
    secret: decodeComponent(decoded.slice(colon + 1)),
    method: 'client_secret_basic',
  };
}

export function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The client if the credentials authenticate it (a public client needs none), else `invalid_client`. */
export function checkClient(client: OAuthClient | undefined, credentials: ClientCredentials): OAuthClient {
  if (!client) throw new OAuthError('invalid_client', 'Unknown client: register again.', 401);
  if (client.authMethod !== 'none') {
    const { secret, method } = credentials;
    const ok = secret && client.secretHash && equalStrings(sha256Hex(secret), client.secretHash);
    if (!ok || method === 'none')
      throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  }
  return client;
}
