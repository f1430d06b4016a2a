/**
 * An export's bytes as text: UTF-16 or UTF-8 (with or without a byte-order mark), else the legacy encoding its bytes
 * most likely are in (a bank's "ANSI" export: Windows-1252 in Western Europe and the Americas, Windows-1250 in
 * Central Europe, Windows-1251 for Cyrillic, Shift_JIS in Japan, GBK in China, EUC-KR in Korea, …). Pure: no Node
 * I/O, usable in a browser; decoding is the platform's TextDecoder (the WHATWG encodings).
 */
import { declaredEncoding, detectLegacyEncoding } from './detect-encoding.js';
import { decodeLegacy, FALLBACK, legacyName } from './legacy.js';

/** `utf8`, `utf-16le`, `utf-16be`, or a legacy encoding by its WHATWG name (`windows-1252`, `shift_jis`, …). */
export type Encoding = string;

export interface Decoded {
  text: string;
  encoding: Encoding;
  /** The file started with a UTF-8 byte-order mark (removed from the text). */
  bom: boolean;
}

/**
 * Decodes with the encoding given, else detects it: UTF-16 by its mark or its zero bytes, UTF-8 when the bytes are
 * valid UTF-8, else the legacy encoding they are most likely in (detectLegacyEncoding). Throws a TypeError when
 * `forced` is utf8 and the bytes are not.
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
  if (forced !== undefined && forced !== 'utf8')
    return { text: decodeLegacy(body, forced), encoding: forced, bom };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf8', bom };
  } catch (error) {
    if (forced === 'utf8' || bom) throw error;
    const encoding = declaredEncoding(body) ?? detectLegacyEncoding(body);
    return { text: decodeLegacy(body, encoding), encoding, bom };
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

/**
 * `--encoding` values: utf8 / utf-8, utf-16 (little-endian) / utf-16be, ansi (Windows-1252), or any label of the
 * WHATWG encodings the platform decodes (latin1, windows-1250, cp1251, shift_jis, sjis, gbk, euc-kr, …).
 */
export function encodingNamed(name: string): Encoding | undefined {
  const n = name.trim().toLowerCase().replace(/_/g, '-');
  if (n === 'utf8' || n === 'utf-8') return 'utf8';
  if (n === 'utf16' || n === 'utf-16' || n === 'utf16le' || n === 'utf-16le') return 'utf-16le';
  if (n === 'utf16be' || n === 'utf-16be') return 'utf-16be';
  return legacyName(n === 'ansi' ? FALLBACK : name.trim());
}

/** An encoding as a person reads its name: "UTF-8", "Central European (Windows-1250)", "UTF-16 (LE)". */
export function encodingTitle(encoding: Encoding): string {
  if (encoding === 'utf8') return 'UTF-8';
  if (encoding.startsWith('utf-16')) return `UTF-16 (${encoding.slice(7).toUpperCase()})`;
  return LEGACY_TITLES[encoding] ?? encoding;
}

const LEGACY_TITLES: Record<string, string> = {
  'windows-1252': 'Latin-1 (Windows-1252)',
  'windows-1250': 'Central European (Windows-1250)',
  'windows-1251': 'Cyrillic (Windows-1251)',
  'windows-1253': 'Greek (Windows-1253)',
  'windows-1254': 'Turkish (Windows-1254)',
  'windows-1255': 'Hebrew (Windows-1255)',
  'windows-1256': 'Arabic (Windows-1256)',
  'windows-1257': 'Baltic (Windows-1257)',
  'windows-874': 'Thai (Windows-874)',
  'iso-8859-2': 'Central European (ISO-8859-2)',
  'iso-8859-7': 'Greek (ISO-8859-7)',
  'koi8-r': 'Cyrillic (KOI8-R)',
  shift_jis: 'Japanese (Shift_JIS)',
  'euc-jp': 'Japanese (EUC-JP)',
  gbk: 'Chinese (GBK)',
  gb18030: 'Chinese (GB18030)',
  big5: 'Chinese (Big5)',
  'euc-kr': 'Korean (EUC-KR)',
};
