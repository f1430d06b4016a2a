/**
 * An export's bytes as text: UTF-8 (with or without a byte-order mark), else Windows-1252 (which is Latin-1 with
 * printable characters such as € in 0x80–0x9F; banks' "ANSI" exports). Pure: no Node I/O, usable in a browser.
 */

export type Encoding = 'utf8' | 'windows-1252' | 'utf-16le' | 'utf-16be';

export interface Decoded {
  text: string;
  encoding: Encoding;
  /** The file started with a UTF-8 byte-order mark (removed from the text). */
  bom: boolean;
}

/** Windows-1252 characters for 0x80–0x9F (the five undefined bytes map to their C1 control, as browsers do). */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    out += String.fromCharCode(
      ...Array.from(chunk, (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH.charCodeAt(b - 0x80) : b)),
    );
  }
  return out;
}

/**
 * Decodes with the encoding given (`utf8`, `latin1`/`windows-1252`), else detects it: UTF-8 when the bytes are
 * valid UTF-8, Windows-1252 otherwise. Throws a TypeError when `forced` is utf8 and the bytes are not.
 */
export function decodeBytes(bytes: Uint8Array, forced?: Encoding): Decoded {
  const utf16 = forced === 'utf-16le' || forced === 'utf-16be' ? forced : utf16Of(bytes);
  if (utf16) {
    const hasBom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const text = new TextDecoder(utf16, { fatal: false }).decode(bytes.subarray(hasBom ? 2 : 0));
    return { text, encoding: utf16, bom: hasBom };
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  if (forced === 'windows-1252') return { text: decodeWindows1252(body), encoding: forced, bom };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf8', bom };
  } catch (error) {
    if (forced === 'utf8' || bom) throw error;
    return { text: decodeWindows1252(body), encoding: 'windows-1252', bom };
  }
}

/**
 * UTF-16 by its byte-order mark, or without one by where its zero bytes are: text in Latin script written as
 * UTF-16 has a zero in every other byte (the high byte of each code unit), at odd offsets little-endian.
 */
function utf16Of(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 8) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (odd > half * 0.6 && even < half * 0.05) return 'utf-16le';
  if (even > half * 0.6 && odd < half * 0.05) return 'utf-16be';
  return undefined;
}

/** `--encoding` values: utf8 / utf-8, latin1 / iso-8859-1 / windows-1252 / cp1252 / ansi. */
export function encodingNamed(name: string): Encoding | undefined {
  const n = name.toLowerCase().replace(/[\s_]/g, '');
  if (n === 'utf8' || n === 'utf-8') return 'utf8';
  if (n === 'utf16' || n === 'utf-16' || n === 'utf-16le' || n === 'utf16le') return 'utf-16le';
  if (n === 'utf-16be' || n === 'utf16be') return 'utf-16be';
  if (['latin1', 'latin-1', 'iso-8859-1', 'iso8859-1', 'windows-1252', 'cp1252', 'ansi'].includes(n))
    return 'windows-1252';
  return undefined;
}
