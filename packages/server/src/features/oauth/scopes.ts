/** Scopes this server understands; any other (e.g. `openid`) is ignored, not refused. */
export const SCOPES = ['expense:read', 'expense:write'] as const;
