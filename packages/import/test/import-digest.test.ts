// The import's hash seam: the browser's SHA-256 (digest.browser.ts, bundled into the console) gives the same
// digests as node:crypto (digest.ts, the CLI), so the console and the CLI derive the same external_ids.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex as browserSha256 } from '../src/send/digest.browser.js';
import { sha256Hex as nodeSha256 } from '../src/send/digest.js';

/** Deterministic pseudo-random bytes (xorshift32), so a failure names its input. */
function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('import digest seam', () => {
  it('matches the known SHA-256 vectors', () => {
    expect(browserSha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(browserSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(browserSha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('gives node:crypto’s digest for every length around the block edges and for large inputs', () => {
    for (const length of [...Array.from({ length: 200 }, (_, i) => i), 1000, 4096, 65_537, 1_000_003]) {
      const input = bytes(length, length + 7);
      const expected = createHash('sha256').update(input).digest('hex');
      expect(browserSha256(input), `${length} bytes`).toBe(expected);
      expect(nodeSha256(input), `${length} bytes`).toBe(expected);
    }
  });

  it('hashes text as UTF-8, as node:crypto does', () => {
    for (const text of [
      'Zahlungsempfänger*in',
      '€ 1.234,56',
      'emoji 😀 and ß',
      '\u0000\n#2',
      'a'.repeat(55),
    ]) {
      expect(browserSha256(text), text).toBe(nodeSha256(text));
    }
  });
});
