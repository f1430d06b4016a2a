/**
 * An export's bytes as text: UTF-8 (with or without a byte-order mark), else Windows-1252 (which is Latin-1 with
 * printable characters such as € in 0x80–0x9F; banks' "ANSI" exports). Pure: no Node I/O, usable in a browser.
 */

export type Encoding = 'utf8' | 'windows-1252';

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

/** `--encoding` values: utf8 / utf-8, latin1 / iso-8859-1 / windows-1252 / cp1252 / ansi. */
export function encodingNamed(name: string): Encoding | undefined {
  const n = name.toLowerCase().replace(/[\s_]/g, '');
  if (n === 'utf8' || n === 'utf-8') return 'utf8';
  if (['latin1', 'latin-1', 'iso-8859-1', 'iso8859-1', 'windows-1252', 'cp1252', 'ansi'].includes(n))
    return 'windows-1252';
  return undefined;
}
