import { createHash } from 'node:crypto';

/**
 * SHA-256 as lowercase hex: the one hash of the import (derived external_ids, the file's digest, the batches'
 * Idempotency-Keys). This is the seam between the CLI and the browser: in Node it is `node:crypto`; the
 * console's bundle of the import core (`browser.ts`, built by packages/server/tsup.config.ts) replaces this
 * module with `digest.browser.ts`, which gives the same digests synchronously (Web Crypto's digest is async
 * only, and the row validation that derives the ids is synchronous).
 */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}
