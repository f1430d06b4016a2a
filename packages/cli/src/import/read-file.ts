import { readFile } from 'node:fs/promises';
import { sha256Hex } from '@expense/import';
import { fileNotReadable } from '../output/file-error.js';

/** An export's bytes and their digest (the batches' Idempotency-Keys start from it). */
export async function readBytes(file: string): Promise<{ bytes: Uint8Array; digest: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw fileNotReadable(file, error);
  }
  return { bytes, digest: sha256Hex(bytes) };
}
