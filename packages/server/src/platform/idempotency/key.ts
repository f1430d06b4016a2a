import { createHash } from 'node:crypto';
import { ApiError } from '../http/api-error.js';

/** Visible ASCII only, 1 to 255 characters (UUIDs, ULIDs and the like); never logged. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header's value, or undefined when absent; a malformed one is invalid_request. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? undefined : header;
  if (value === undefined || !KEY.test(value)) {
    throw new ApiError(
      'invalid_request',
      'Idempotency-Key must be one value of 1 to 255 visible ASCII characters (e.g. a UUID).',
      { details: { header: 'Idempotency-Key' } },
    );
  }
  return value;
}

/** What makes two requests "the same": endpoint, workspace and the parsed body (not its formatting). */
export function requestHash(parts: {
  endpoint: string;
  workspaceId: string | null;
  /** The SQL text, or the JSON body of a route that takes no SQL. */
  sql: string;
  dryRun: boolean;
}): string {
  return createHash('sha256')
    .update(JSON.stringify([parts.endpoint, parts.workspaceId, parts.sql, parts.dryRun]))
    .digest('hex');
}
