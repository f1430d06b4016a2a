/**
 * Conversions between the three ways positions in SQL text are counted: JavaScript's UTF-16 code units
 * (string indexes), UTF-8 bytes (libpg-query's node and token locations, since it receives the text as
 * UTF-8) and code points (PostgreSQL's error positions count characters). Lone surrogates count as one
 * unit of three bytes, as the WTF-8 encoding of the text would (the guard rejects them before parsing).
 */
import type { Position } from '../types.js';

/** Whether every code unit is ASCII: then units, bytes and code points coincide. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The UTF-8 length of the first `index` UTF-16 units. */
export function utf8Length(text: string, index: number): number {
  let bytes = 0;
  for (let i = 0; i < index; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < index) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The UTF-16 index of the `n`-th code point (0-based; clamped to the text). */
export function codePointIndex(text: string, n: number): number {
  let i = 0;
  for (let k = 0; k < n && i < text.length; k++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return i;
}

/** PostgreSQL's error position (1-based, in characters) as a 0-based UTF-16 offset. */
export function offsetOfCharacter(text: string, position: number): number {
  return codePointIndex(text, Math.max(0, position - 1));
}

/**
 * The UTF-16 index of a UTF-8 byte offset (the first unit that starts at or past it, clamped to the
 * text), and the byte offset of that unit. Counting starts from a known pair (`fromByte`, `fromIndex`), so
 * that increasing offsets cost one pass over the text in all.
 */
export function seekByte(
  text: string,
  byte: number,
  fromByte = 0,
  fromIndex = 0,
): { index: number; byte: number } {
  let b = fromByte;
  let i = fromIndex;
  while (b < byte && i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      b += 1;
      i += 1;
    } else if (c < 0x800) {
      b += 2;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      b += 4;
      i += 2;
    } else {
      b += 3;
      i += 1;
    }
  }
  return { index: i, byte: b };
}

/** The 0-based offset's 1-based line and column (UTF-16 code units, as JavaScript indexes strings). */
export function positionAt(text: string, index: number): Position {
  const offset = Math.max(0, Math.min(index, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { offset, line, column: offset - lineStart + 1 };
}
