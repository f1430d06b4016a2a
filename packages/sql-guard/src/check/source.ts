import { isAscii, positionAt, seekByte } from '../text/offsets.js';
import type { Position } from '../types.js';

/**
 * The submitted text and conversions from the parser's UTF-8 byte offsets to JavaScript (UTF-16)
 * offsets. libpg-query receives the string encoded as UTF-8, so every location it reports
 * (token start/end, node `location`, `stmt_location`, error cursor) counts bytes.
 * Lone surrogates are rejected before parsing, so the encoding is plain UTF-8.
 */
export class Source {
  private asciiText: boolean | undefined;
  private byteCursor = 0;
  private indexCursor = 0;

  /** `ascii`: whether the text is ASCII, when the caller has read it already (text-facts.ts). */
  constructor(
    readonly text: string,
    ascii?: boolean,
  ) {
    this.asciiText = ascii;
  }

  /** Whether the text is ASCII (then byte offsets are indexes); computed when first needed. */
  get ascii(): boolean {
    if (this.asciiText === undefined) this.asciiText = isAscii(this.text);
    return this.asciiText;
  }

  /** The UTF-16 index of a UTF-8 byte offset (clamped to the text). */
  index(byte: number): number {
    if (byte <= 0) return 0;
    if (this.ascii) return Math.min(byte, this.text.length);
    if (byte < this.byteCursor) {
      this.byteCursor = 0;
      this.indexCursor = 0;
    }
    const found = seekByte(this.text, byte, this.byteCursor, this.indexCursor);
    this.byteCursor = found.byte;
    this.indexCursor = found.index;
    return found.index;
  }

  /** Position of a UTF-16 index: 0-based offset, 1-based line and column (columns count UTF-16 units). */
  position(index: number): Position {
    return positionAt(this.text, index);
  }

  /** Position of a UTF-8 byte offset. */
  positionOfByte(byte: number): Position {
    return this.position(this.index(byte));
  }
}

/** PostgreSQL's whitespace (scan.l `space`): space, tab, newline, carriage return, form feed, vertical tab. */
export function isSqlSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
