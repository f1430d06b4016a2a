export type KeyKind = 'agent' | 'cli' | 'oauth' | 'console';
export type KeyAccess = 'read' | 'read_write';

/** A verified key's row: who it belongs to, what it may do and, for an OAuth token, its audience. */
export interface KeyRow {
  key_hash: string;
  connection_id: string;
  user_id: string;
  kind: KeyKind;
  access: KeyAccess;
  workspace_id: string | null;
  expires_at: Date | string | null;
  resource: string | null;
}

/** The live (not revoked, not expired) keys whose hash meets `hashCondition`, a condition on `k.key_hash` and $1. */
export function selectLiveKeys(hashCondition: string): string {
  return `SELECT k.key_hash, k.connection_id, k.user_id, k.kind, k.access, k.workspace_id, k.expires_at, g.resource
            FROM expense_internal.api_keys AS k
            LEFT JOIN expense_internal.oauth_grants AS g ON g.grant_id = k.oauth_grant_id
           WHERE ${hashCondition} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`;
}
