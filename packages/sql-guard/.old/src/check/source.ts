import type { Position } from '../types.js';

/**
 * The submitted text and conversions from the parser's UTF-8 byte offsets to JavaScript (UTF-16)
 * offsets. libpg-query receives the string encoded as UTF-8, so every location it reports
 * (token start/end, node `location`, `stmt_location`, error cursor) counts bytes.
 * Lone surrogates are rejected before parsing, so the encoding is plain UTF-8.
 */
export class Source {
  readonly ascii: boolean;
  private byteCursor = 0;
  private indexCursor = 0;

  constructor(readonly text: string) {
    this.ascii = isAscii(text);
  }

  /** The UTF-16 index of a UTF-8 byte offset (clamped to the text). */
  index(byte: number): number {
    if (byte <= 0) return 0;
    if (this.ascii) return Math.min(byte, this.text.length);
    if (byte < this.byteCursor) {
      this.byteCursor = 0;
      this.indexCursor = 0;
    }
    const text = this.text;
    let b = this.byteCursor;
    let i = this.indexCursor;
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
    this.byteCursor = b;
    this.indexCursor = i;
    return i;
  }

  /** Position of a UTF-16 index: 0-based offset, 1-based line and column (columns count UTF-16 units). */
  position(index: number): Position {
    const offset = Math.max(0, Math.min(index, this.text.length));
    let line = 1;
    let lineStart = 0;
    for (let i = this.text.indexOf('\n'); i !== -1 && i < offset; i = this.text.indexOf('\n', i + 1)) {
      line += 1;
      lineStart = i + 1;
    }
    return { offset, line, column: offset - lineStart + 1 };
  }

  /** Position of a UTF-8 byte offset. */
  positionOfByte(byte: number): Position {
    return this.position(this.index(byte));
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** PostgreSQL's whitespace (scan.l `space`): space, tab, newline, carriage return, form feed, vertical tab. */
export function isSqlSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
