import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../platform/storage/database.js';
import { createApiKey, type KeyAccess } from '../auth/api-keys.js';
import { generateApiKey, sha256Hex } from '../auth/secrets.js';

export const CODE_TTL_MS = 5 * 60_000;
export const REQUEST_TTL_MS = 10 * 60_000;
export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;

export type AuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  authMethod: AuthMethod;
  secretHash: string | null;
  metadataDocument: boolean;
  fetchedAt: Date | null;
}

export interface AuthorizationRequest {
  requestId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  resource: string;
  scope: string;
}

export interface Grant {
  grantId: string;
  clientId: string;
  userId: string;
  resource: string;
  access: KeyAccess;
  workspaceId: string | null;
  expiresAt: Date;
  revokedAt: Date | null;
}

export interface IssuedTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken?: string;
  connectionId: string;
}

/** An opaque secret (codes, refresh tokens, client secrets): 256 random bits; only its SHA-256 is stored. */
export const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

interface ClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: AuthMethod;
  client_secret_hash: string | null;
  metadata_document: boolean;
  fetched_at: Date | string | null;
}

const toClient = (r: ClientRow): OAuthClient => ({
  clientId: r.client_id,
  clientName: r.client_name,
  redirectUris: r.redirect_uris,
  authMethod: r.token_endpoint_auth_method,
  secretHash: r.client_secret_hash,
  metadataDocument: r.metadata_document,
  fetchedAt: r.fetched_at === null ? null : new Date(r.fetched_at),
});

export async function findClient(db: Queryable, clientId: string): Promise<OAuthClient | undefined> {
  const { rows } = await db.query<ClientRow>(
    `SELECT client_id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash,
            metadata_document, fetched_at
       FROM expense_internal.oauth_clients WHERE client_id = $1`,
    [clientId],
  );
  return rows[0] ? toClient(rows[0]) : undefined;
}

/** Stores a client (registration, or a fetched metadata document, which replaces the stored copy). */
export async function saveClient(db: Queryable, client: OAuthClient): Promise<void> {
  await db.query(
    `INSERT INTO expense_internal.oauth_clients
       (client_id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash, metadata_document, fetched_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (client_id) DO UPDATE SET client_name = EXCLUDED.client_name,
       redirect_uris = EXCLUDED.redirect_uris, token_endpoint_auth_method = EXCLUDED.token_endpoint_auth_method,
       fetched_at = EXCLUDED.fetched_at`,
    [
      client.clientId,
      client.clientName,
      JSON.stringify(client.redirectUris),
      client.authMethod,
      client.secretHash,
      client.metadataDocument,
      client.fetchedAt,
    ],
  );
}

export async function saveRequest(
  db: Queryable,
  r: Omit<AuthorizationRequest, 'requestId'>,
): Promise<string> {
  // Expired requests go with each new one, so the table holds only the last ten minutes.
  await db.query('DELETE FROM expense_internal.oauth_requests WHERE expires_at < now()');
  const { rows } = await db.query<{ request_id: string }>(
    `INSERT INTO expense_internal.oauth_requests
       (client_id, redirect_uri, code_challenge, state, resource, scope, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING request_id`,
    [r.clientId, r.redirectUri, r.codeChallenge, r.state, r.resource, r.scope, REQUEST_TTL_MS / 1000],
  );
  return rows[0]!.request_id;
}

export async function findRequest(
  db: Queryable,
  requestId: string,
): Promise<AuthorizationRequest | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(requestId)) return undefined;
  const { rows } = await db.query<{
    request_id: string;
    client_id: string;
    redirect_uri: string;
    code_challenge: string;
    state: string | null;
    resource: string;
    scope: string;
  }>(
    `SELECT request_id, client_id, redirect_uri, code_challenge, state, resource, scope
       FROM expense_internal.oauth_requests WHERE request_id = $1 AND expires_at > now()`,
    [requestId],
  );
  const r = rows[0];
  return r
    ? {
        requestId: r.request_id,
        clientId: r.client_id,
        redirectUri: r.redirect_uri,
        codeChallenge: r.code_challenge,
        state: r.state,
        resource: r.resource,
        scope: r.scope,
      }
    : undefined;
}

/** Consumes a request once: the second consent for the same request finds nothing. */
export async function takeRequest(db: Queryable, requestId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM expense_internal.oauth_requests WHERE request_id = $1', [
    requestId,
  ]);
  return (result.rowCount ?? 0) > 0;
}

/**
 * The user's consent: a grant and its authorization code (returned in plaintext once). Run it in a transaction
 * that took the key caps first (features/auth/key-caps.ts): a grant is a key.
 */
export async function createGrant(
  tx: Queryable,
  g: Omit<Grant, 'grantId' | 'revokedAt'>,
  code: { redirectUri: string; codeChallenge: string },
): Promise<string> {
  const plain = newSecret('oac_');
  const { rows } = await tx.query<{ grant_id: string }>(
    `INSERT INTO expense_internal.oauth_grants (client_id, user_id, resource, access, workspace_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING grant_id`,
    [g.clientId, g.userId, g.resource, g.access, g.workspaceId, g.expiresAt],
  );
  await tx.query(
    `INSERT INTO expense_internal.oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [sha256Hex(plain), rows[0]!.grant_id, code.redirectUri, code.codeChallenge, CODE_TTL_MS / 1000],
  );
  return plain;
}

interface GrantRow {
  grant_id: string;
  client_id: string;
  user_id: string;
  resource: string;
  access: KeyAccess;
  workspace_id: string | null;
  expires_at: Date | string;
  revoked_at: Date | string | null;
}

const GRANT_COLUMNS =
  'g.grant_id, g.client_id, g.user_id, g.resource, g.access, g.workspace_id, g.expires_at, g.revoked_at';

const toGrant = (r: GrantRow): Grant => ({
  grantId: r.grant_id,
  clientId: r.client_id,
  userId: r.user_id,
  resource: r.resource,
  access: r.access,
  workspaceId: r.workspace_id,
  expiresAt: new Date(r.expires_at),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
});

export type CodeLookup =
  | { kind: 'ok'; grant: Grant; redirectUri: string; codeChallenge: string }
  | { kind: 'expired' | 'unknown' }
  | { kind: 'replayed'; grant: Grant };

/** Marks the code used (once); a second use is reported so the caller revokes the grant (RFC 6749 §4.1.2). */
export async function redeemCode(db: Queryable, code: string): Promise<CodeLookup> {
  const { rows } = await db.query<
    GrantRow & { redirect_uri: string; code_challenge: string; used: boolean; expired: boolean }
  >(
    `WITH used AS (
       UPDATE expense_internal.oauth_codes SET used_at = coalesce(used_at, now())
        WHERE code_hash = $1
        RETURNING grant_id, redirect_uri, code_challenge, expires_at <= now() AS expired,
                  used_at IS DISTINCT FROM now() AS used
     )
     SELECT ${GRANT_COLUMNS}, u.redirect_uri, u.code_challenge, u.used, u.expired
       FROM used AS u JOIN expense_internal.oauth_grants AS g ON g.grant_id = u.grant_id`,
    [sha256Hex(code)],
  );
  const r = rows[0];
  if (!r) return { kind: 'unknown' };
  if (r.used) return { kind: 'replayed', grant: toGrant(r) };
  if (r.expired) return { kind: 'expired' };
  return { kind: 'ok', grant: toGrant(r), redirectUri: r.redirect_uri, codeChallenge: r.code_challenge };
}

export type RefreshLookup =
  | { kind: 'ok'; grant: Grant }
  | { kind: 'unknown' }
  | { kind: 'reused'; grant: Grant };

/** Marks a refresh token used (once); presenting a used one again is reuse. */
export async function redeemRefreshToken(db: Queryable, token: string): Promise<RefreshLookup> {
  const { rows } = await db.query<GrantRow & { used: boolean }>(
    `WITH used AS (
       UPDATE expense_internal.oauth_refresh_tokens SET used_at = coalesce(used_at, now())
        WHERE token_hash = $1
        RETURNING grant_id, used_at IS DISTINCT FROM now() AS used
     )
     SELECT ${GRANT_COLUMNS}, u.used
       FROM used AS u JOIN expense_internal.oauth_grants AS g ON g.grant_id = u.grant_id`,
    [sha256Hex(token)],
  );
  const r = rows[0];
  if (!r) return { kind: 'unknown' };
  return r.used ? { kind: 'reused', grant: toGrant(r) } : { kind: 'ok', grant: toGrant(r) };
}

/**
 * Issues the grant's access token (its ApiKey of kind oauth, created the first time and given a new secret in
 * place afterwards) and a new refresh token while the grant outlives the access token.
 */
export async function issueTokens(db: Database, grant: Grant, clientName: string): Promise<IssuedTokens> {
  const now = Date.now();
  const accessExpires = new Date(Math.min(now + ACCESS_TOKEN_TTL_MS, grant.expiresAt.getTime()));
  return db.transaction(async (tx) => {
    const apiKey = generateApiKey();
    const updated = await tx.query<{ connection_id: string }>(
      `UPDATE expense_internal.api_keys SET key_hash = $2, prefix = $3, expires_at = $4
        WHERE oauth_grant_id = $1 AND revoked_at IS NULL RETURNING connection_id`,
      [grant.grantId, sha256Hex(apiKey), apiKey.slice(0, 12), accessExpires],
    );
    let connectionId = updated.rows[0]?.connection_id;
    let accessToken = apiKey;
    if (!connectionId) {
      const created = await createApiKey(tx, grant.userId, clientName.slice(0, 100), {
        kind: 'oauth',
        access: grant.access,
        workspaceId: grant.workspaceId,
        expiresAt: accessExpires,
      });
      await tx.query('UPDATE expense_internal.api_keys SET oauth_grant_id = $2 WHERE connection_id = $1', [
        created.connectionId,
        grant.grantId,
      ]);
      connectionId = created.connectionId;
      accessToken = created.apiKey;
    }
    let refreshToken: string | undefined;
    if (grant.expiresAt.getTime() > accessExpires.getTime()) {
      refreshToken = newSecret('ort_');
      await tx.query(
        'INSERT INTO expense_internal.oauth_refresh_tokens (token_hash, grant_id) VALUES ($1, $2)',
        [sha256Hex(refreshToken), grant.grantId],
      );
    }
    return {
      accessToken,
      connectionId,
      expiresIn: Math.max(1, Math.floor((accessExpires.getTime() - now) / 1000)),
      ...(refreshToken ? { refreshToken } : {}),
    };
  });
}

/** The grant of an access token (an oauth ApiKey) or of a refresh token, for the revocation endpoint. */
export async function grantOfToken(db: Queryable, token: string): Promise<Grant | undefined> {
  const hash = sha256Hex(token);
  const { rows } = await db.query<GrantRow>(
    `SELECT ${GRANT_COLUMNS} FROM expense_internal.oauth_grants AS g
      WHERE g.grant_id = (SELECT oauth_grant_id FROM expense_internal.api_keys WHERE key_hash = $1)
         OR g.grant_id = (SELECT grant_id FROM expense_internal.oauth_refresh_tokens WHERE token_hash = $1)`,
    [hash],
  );
  return rows[0] ? toGrant(rows[0]) : undefined;
}
