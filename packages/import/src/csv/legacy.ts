/**
 * Legacy (non-Unicode) encodings by their WHATWG names: which labels the platform decodes, and decoding with one.
 * Pure; the platform's TextDecoder, but for Windows-1252 (see decodeLegacy).
 */

/** What a file that is not UTF-8 is read as when its bytes say nothing more: the commonest legacy encoding. */
export const FALLBACK = 'windows-1252';
/** The WHATWG name of an encoding label the platform decodes; undefined for Unicode ones and unknown labels. */
export function legacyName(label: string): string | undefined {
  try {
    const name = new TextDecoder(label).encoding;
    return name === 'utf-8' || name.startsWith('utf-16') || name === 'replacement' ? undefined : name;
  } catch {
    return undefined;
  }
}

/** Windows-1252 characters for 0x80–0x9F (the five undefined bytes map to their C1 control, as browsers do). */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    out += String.fromCharCode(
      ...Array.from(chunk, (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH.charCodeAt(b - 0x80) : b)),
    );
  }
  return out;
}

/** Node 20's TextDecoder reads windows-1252 as ISO-8859-1 (0x80–0x9F as C1 controls, not € – ’ …): decoded here. */
export const decodeLegacy = (bytes: Uint8Array, name: string): string =>
  name === FALLBACK ? decodeWindows1252(bytes) : new TextDecoder(name).decode(bytes);
