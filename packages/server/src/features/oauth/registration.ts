import type { AuthMethod } from './store.js';

export class RegistrationError extends Error {
  constructor(
    readonly code: 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
  ) {
    super(message);
  }
}

export interface Registration {
  redirectUris: string[];
  clientName: string | undefined;
  authMethod: AuthMethod;
}

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;
const MAX_NAME_LENGTH = 200;
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
const AUTH_METHODS: readonly AuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];

function checkRedirectUri(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URI_LENGTH) {
    throw new RegistrationError(
      'invalid_redirect_uri',
      'Each redirect URI is a string of at most 2000 characters.',
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RegistrationError('invalid_redirect_uri', `Not an absolute URI: ${value}`);
  }
  if (url.hash) throw new RegistrationError('invalid_redirect_uri', 'A redirect URI has no fragment.');
  if (FORBIDDEN_SCHEMES.has(url.protocol)) {
    throw new RegistrationError('invalid_redirect_uri', `The scheme ${url.protocol} is not allowed.`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    throw new RegistrationError(
      'invalid_redirect_uri',
      'http redirect URIs are allowed for loopback addresses only.',
    );
  }
  return value;
}

/** Client metadata (RFC 7591 §2) from a registration request or a client ID metadata document. */
export function parseRegistration(body: unknown): Registration {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new RegistrationError('invalid_client_metadata', 'Send the client metadata as a JSON object.');
  }
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new RegistrationError('invalid_redirect_uri', 'redirect_uris: 1 to 10 redirect URIs are required.');
  }
  const method = m.token_endpoint_auth_method ?? 'none';
  if (!AUTH_METHODS.includes(method as AuthMethod)) {
    throw new RegistrationError(
      'invalid_client_metadata',
      'token_endpoint_auth_method: none, client_secret_post or client_secret_basic.',
    );
  }
  const grantTypes = m.grant_types;
  if (
    grantTypes !== undefined &&
    (!Array.isArray(grantTypes) || !grantTypes.includes('authorization_code'))
  ) {
    throw new RegistrationError('invalid_client_metadata', 'grant_types must include authorization_code.');
  }
  const responseTypes = m.response_types;
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || !responseTypes.includes('code'))) {
    throw new RegistrationError('invalid_client_metadata', 'response_types must include code.');
  }
  const name = m.client_name;
  if (
    name !== undefined &&
    (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH)
  ) {
    throw new RegistrationError('invalid_client_metadata', 'client_name: 1 to 200 characters.');
  }
  return {
    redirectUris: uris.map(checkRedirectUri),
    clientName: typeof name === 'string' ? name.trim() : undefined,
    authMethod: method as AuthMethod,
  };
}
